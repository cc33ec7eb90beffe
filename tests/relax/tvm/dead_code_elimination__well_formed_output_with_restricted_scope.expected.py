# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(private=True)
    def subroutine(A: R.Tensor) -> R.Tensor:
        cls = Module
        B: R.Tensor = R.add(A, A)
        C: R.Tensor = cls.subsubroutine(B)
        D: R.Tensor = R.multiply(C, C)
        return C

    @R.function(private=True)
    def subsubroutine(A: R.Tensor) -> R.Tensor:
        B: R.Tensor = R.add(A, A)
        return B

    @R.function
    def main(A: R.Tensor) -> R.Tensor:
        cls = Module
        B: R.Tensor = R.add(A, A)
        C: R.Tensor = cls.subroutine(B)
        return C
