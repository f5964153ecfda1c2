/* Policy fixture: a function with a C name that the contract does not
 * declare (it could stand in for a library function the harness calls). */
int helper(int x)
{
    return 2 * x;
}

void matmul(const float *A, const float *B, float *C, int n)
{
    (void)A, (void)B, (void)C;
    (void)helper(n);
}
