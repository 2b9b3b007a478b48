// Fixture: `extern __shared__` with a size. The rewriter must stop at line 3.
__global__ void k() {
  extern __shared__ float tile[32];
}
