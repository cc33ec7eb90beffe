# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    subroutine = R.ExternFunc("dummy_subroutine")
    @R.function
    def subsubroutine(A: R.Tensor) -> R.Tensor:
        B: R.Tensor = R.add(A, A)
        C: R.Tensor = R.multiply(B, B)
        return B

    @R.function
    def main(A: R.Tensor) -> R.Tensor:
        cls = Module
        B: R.Tensor = R.add(A, A)
        C: R.Tensor = cls.subroutine(B)
        D: R.Tensor = R.multiply(C, C)
        return C
