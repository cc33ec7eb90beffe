# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(pure=False, private=True)
    def main_inner() -> R.Tuple:
        R.print(format=R.str("Wow!"))
        return R.tuple()

    @R.function(pure=False)
    def main(x: R.Tensor((), dtype="int32")) -> R.Tensor((), dtype="int32"):
        cls = Module
        cls.main_inner()
        return x