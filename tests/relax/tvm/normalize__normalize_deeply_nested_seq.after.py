# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(private=True)
    def main() -> R.Tensor((), dtype="int32"):
        x: R.Tensor((), dtype="int32") = R.const(1, "int32")
        u: R.Tensor((), dtype="int32") = R.const(2, "int32")
        w: R.Tensor((), dtype="int32") = R.match_cast(u, R.Tensor((), dtype="int32"))
        v: R.Tensor((), dtype="int32") = u
        w_1: R.Tensor((), dtype="int32") = R.match_cast(v, R.Tensor((), dtype="int32"))
        z: R.Tensor((), dtype="int32") = w_1
        y: R.Tensor((), dtype="int32") = z
        return y
