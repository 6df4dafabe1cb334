/* Loop macros with a braced body, as list and queue libraries define them. */
struct node { struct node *next; int v; };
#define list_for_each(pos, head) for ((pos) = (head)->next; (pos) != (head); (pos) = (pos)->next)
#define repeat_n(i, n) for (int i = 0; i < (n); i++)
#define while_ok(x) while ((x) > 0)
#define CHECK(x) do { if (!(x)) return; } while (0)
#define BLOCK_MACRO(x) for (int _k = 0; _k < 1; _k++) { x; }

void test_loops(void)
{
    struct node head = {&head, 0}, *pos;
    int sum = 0;
    list_for_each(pos, &head) {
        sum += pos->v;
        if (sum > 3) {
            sum = 0;
        }
    }
    repeat_n(i, 3) {
        sum += i;
    }
    while_ok(sum) {
        sum--;
    }
    repeat_n(j, 2) sum++;
    CHECK(sum == 0);
    BLOCK_MACRO(sum++);
    (void)sum;
}
