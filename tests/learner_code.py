"""Code as a learner types it into a "Your turn" cell: loops, no helpers, none of the lab's names.

The checker's tests, the sandbox's and the bench's checks run the same text.
"""

# the product row by column, one multiply-add at a time: chapter 8's matmul, written out
LEARNER_MATMUL = """
def matmul(x, w):
    out = [[0.0] * len(w[0]) for _ in range(len(x))]
    for i in range(len(x)):
        for j in range(len(w[0])):
            for k in range(len(w)):
                out[i][j] += x[i][k] * w[k][j]
    return out
"""
