include rclocal
