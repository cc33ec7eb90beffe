# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(private=True)
    def subroutine(arg: R.Tensor) -> R.Tensor:
        gv: R.Tensor = R.add(arg, arg)
        return gv

    @R.function
    def to_be_ignored(A: R.Tensor) -> R.Tensor:
        cls = Module
        B: R.Tensor = R.add(A, A)
        C: R.Tensor = cls.subroutine(B)
        D: R.Tensor = R.multiply(C, C)
        return C

    @R.function
    def to_be_transformed(A: R.Tensor) -> R.Tensor:
        cls = Module
        B: R.Tensor = R.add(A, A)
        C: R.Tensor = cls.subroutine(B)
        return C
