/* The dispatch floor of a computed-goto interpreter (upstream IREE's
 * scheme): a fused loop latch plus N independent i32 adds, 16-byte ops, a
 * register file in memory. docs/interpreter.md compares opbench.py's loops
 * against these times.
 *
 *   gcc -O2 xtask/experiments/dispatch_floor.c -o /tmp/dispatch_floor && /tmp/dispatch_floor
 *
 * Not built by cargo; the project itself needs no C toolchain. */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

typedef struct { uint8_t tag, pad; uint16_t a, b, r, n, c, t, f; } Op;
enum { ADD, LATCH, RET };

__attribute__((noinline)) static uint32_t run(const Op *code, uint32_t *regs) {
  static void *handlers[] = {&&add, &&latch, &&ret};
  const Op *ip = code;
#define NEXT goto *handlers[ip->tag]
  NEXT;
add:
  regs[ip->r] = regs[ip->a] + regs[ip->b];
  ip++;
  NEXT;
latch: {
  uint32_t sum = regs[ip->a] + regs[ip->b];
  regs[ip->r] = sum;
  int more = (int32_t)sum < (int32_t)regs[ip->n];
  regs[ip->c] = more;
  ip = code + (more ? ip->t : ip->f);
  NEXT;
}
ret:
  return regs[ip->r];
}

int main(void) {
  const uint32_t trips = 10000000;
  for (int adds = 0; adds <= 5; adds++) {
    Op code[8];
    int k = 0;
    for (int j = 0; j < adds; j++) code[k++] = (Op){ADD, 0, 10 + 2 * j, 8, 10 + 2 * j};
    code[k] = (Op){LATCH, 0, 0, 2, 0, 1, 3, 0, (uint16_t)(k + 1)};
    k++;
    code[k++] = (Op){RET, 0, 0, 0, 10};
    double best = 1e9;
    for (int rep = 0; rep < 5; rep++) {
      uint32_t regs[32] = {0};
      regs[1] = trips, regs[2] = 1, regs[8] = 1;
      struct timespec a, b;
      clock_gettime(CLOCK_MONOTONIC, &a);
      volatile uint32_t result = run(code, regs);
      (void)result;
      clock_gettime(CLOCK_MONOTONIC, &b);
      double s = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9;
      if (s < best) best = s;
    }
    printf("latch + %d adds: %.1f ms per %u iterations\n", adds, best * 1e3, trips);
  }
  return 0;
}
