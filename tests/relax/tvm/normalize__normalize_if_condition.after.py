# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(private=True)
    def main(cond: R.Tensor((), dtype="bool"), x: R.Tensor((1,), dtype="float32")) -> R.Tensor((1,), dtype="float32"):
        gv2: R.Tensor((), dtype="bool") = (cond,)[0]
        if gv2:
            gv: R.Tensor((1,), dtype="float32") = R.add(x, x)
            y: R.Tensor((1,), dtype="float32") = gv
        else:
            gv1: R.Tensor((1,), dtype="float32") = R.multiply(x, x)
            y: R.Tensor((1,), dtype="float32") = gv1
        return y
