module flashstock/clumps

go 1.21
