/* The raw-MPI side of `cargo xtask bench-collectives`: MPI_Allreduce (sum,
 * f32, separate send and receive buffers, as the compiled all_reduce gets,
 * on the same kind of pages)
 * of BYTES bytes, ITERATIONS times after one untimed call, between two
 * barriers; each rank prints `raw_allreduce rank=R bytes=B iterations=N
 * ns_per_call=T`.
 *
 *   mpicc -O2 xtask/experiments/allreduce_raw.c -o /tmp/allreduce_raw
 *   mpirun -n 2 /tmp/allreduce_raw 1048576 1000
 *
 * The xtask builds it with mpicc under target/; the project itself needs no
 * C toolchain. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

/* Host memory as iree-rs allocates it (crates/hal/src/buffer.rs): buffers
 * of 2 MiB and more on 2 MiB boundaries with transparent huge pages asked
 * for, smaller ones from the heap, so that both sides reduce over the same
 * kind of pages. */
static float *host_buffer(long bytes) {
  const long huge = 2l << 20;
  if (bytes < huge) return malloc(bytes);
  void *p = NULL;
  if (posix_memalign(&p, huge, bytes) != 0) return NULL;
  madvise(p, bytes / huge * huge, MADV_HUGEPAGE);
  return p;
}

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc != 3) {
    fprintf(stderr, "usage: allreduce_raw BYTES ITERATIONS\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  long bytes = atol(argv[1]);
  long iterations = atol(argv[2]);
  int count = (int)(bytes / 4), rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  float *send = host_buffer(bytes), *recv = host_buffer(bytes);
  memset(recv, 0, bytes);
  for (int i = 0; i < count; i++) send[i] = 1.0f;
  MPI_Allreduce(send, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  double start = now_ns();
  for (long i = 0; i < iterations; i++)
    MPI_Allreduce(send, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  double elapsed = now_ns() - start;
  if (recv[0] != 2.0f && recv[0] != 1.0f) MPI_Abort(MPI_COMM_WORLD, 3);
  printf("raw_allreduce rank=%d bytes=%ld iterations=%ld ns_per_call=%.1f\n", rank, bytes,
         iterations, elapsed / (double)iterations);
  free(send);
  free(recv);
  MPI_Finalize();
  return 0;
}
