# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(private=True)
    def main() -> R.Tensor((), dtype="int32"):
        x: R.Tensor((), dtype="int32") = R.const(1, "int32")
        z: R.Tensor((), dtype="int32") = R.const(2, "int32")
        y: R.Tensor((), dtype="int32") = z
        return y
