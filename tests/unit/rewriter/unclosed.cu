// Fixture: a launch configuration that is never closed. The rewriter must stop at line 5.
__global__ void k(int x) {}

void launch() {
  k<<<1, 2(3);
}
