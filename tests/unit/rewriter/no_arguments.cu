// Fixture: a launch without its argument list. The rewriter must stop at line 5.
__global__ void k() {}

void launch() {
  k<<<1, 2>>>;
}
