// Fixture: `<<<` after something that is not a kernel name. The rewriter must stop at line 4.
__global__ void k(int x) {}
int launch(int* kernels) {
  return 2 * <<<1, 2>>>(3);
}
