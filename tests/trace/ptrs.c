/* ptrs.c — trace-pointers.sh's program: ptr_walk gets an array of int pointers, an array of
 * int64 and an array of int16, whose elements the suite reads through scaled pointers
 * (uprobe arguments) under kiln trace and bpftrace alike. */
#include <stdint.h>

__attribute__((noinline)) int ptr_walk(int **pp, int64_t *l, int16_t *h)
{
	__asm__ volatile("" : : "r"(pp), "r"(l), "r"(h) : "memory");
	return (int)(*pp[0] + l[0] + h[0]);
}

int main(void)
{
	int x = 11, y = 22, z = 33;
	int *pp[3] = { &x, &y, &z };
	int64_t l[4] = { 100, 200, 300, 400 };
	int16_t h[4] = { -1, -2, -3, -4 };
	return ptr_walk(pp, l, h) == 0;
}
