# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(private=True)
    def main(cond: R.Tensor((), dtype="bool"), x: R.Tensor((), dtype="int32"), y: R.Tensor((), dtype="int32")) -> R.Tensor((), dtype="int32"):
        if cond:
            gv: R.Tensor((), dtype="int32") = R.add(x, y)
            z: R.Tensor((), dtype="int32") = gv
        else:
            gv1: R.Tensor((), dtype="int32") = R.multiply(x, y)
            z: R.Tensor((), dtype="int32") = gv1
        return z
