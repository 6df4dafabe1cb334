/* A file with a syntax error. */
void test_broken(void)
{
    int x = 1
    x++;
}
