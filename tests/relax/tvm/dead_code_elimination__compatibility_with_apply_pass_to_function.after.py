# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    subroutine = R.ExternFunc("dummy_subroutine")
    to_be_ignored = R.ExternFunc("dummy_to_be_ignored")
    @R.function
    def to_be_transformed(A: R.Tensor) -> R.Tensor:
        cls = Module
        B: R.Tensor = R.add(A, A)
        C: R.Tensor = cls.subroutine(B)
        return C
