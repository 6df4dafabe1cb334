#include "ring.h"
int main(void) { ring_push(1); return 0; }
