/// \file
/// \brief Exercise 11's interface: the forward pass of one attention head,
/// O = softmax(Q K^T / sqrt(d)) V, in float32. Your version (namespace student) and the solution
/// (namespace solution) both provide it; the grader calls both.
#pragma once

#include <cuda_runtime.h>

namespace student {
/// O = softmax(Q K^T / sqrt(d)) V for one head: Q, K, V and O are row-major n x d (row i of Q is
/// query i; row j of K and of V are key j and value j), the softmax runs along each row of the
/// n x n scores, so O[i] = sum over j of p[i][j] V[j] with p[i][j] = exp(s[i][j]) / sum over j' of
/// exp(s[i][j']) and s[i][j] = (Q[i] . K[j]) / sqrt(d). No mask: every query sees every key.
/// n >= 1, d is 32, 64 or 128; accumulate in float32. All pointers are device memory; Q, K and V
/// are not changed. Launch configuration and scratch memory (e.g. the n x n scores) are yours.
void attention(const float* Q, const float* K, const float* V, float* O, int n, int d);
}  // namespace student

namespace solution {
/// The reference version of student::attention.
void attention(const float* Q, const float* K, const float* V, float* O, int n, int d);
}  // namespace solution
