/* The statements that exist depend on -DFOO from compile_commands.json. */
void test_foo(void)
{
    int x = 0;
#if FOO
    x = 1;
    x = 2;
#endif
    (void)x;
}
