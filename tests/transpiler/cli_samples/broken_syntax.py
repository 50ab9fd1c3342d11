def broken(x):
    return x +
