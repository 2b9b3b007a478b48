// Fixture: a __shared__ array in a host function, which nvcc rejects. The rewriter must stop at line 4.
#include <cuda_runtime.h>
void launch(float* d) {
  __shared__ float tile[32];
  tile[0] = d[0];
}
