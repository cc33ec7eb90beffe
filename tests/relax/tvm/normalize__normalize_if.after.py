# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(private=True)
    def main(cond: R.Tensor((), dtype="bool"), x: R.Tensor((1,), dtype="float32")) -> R.Tensor((1,), dtype="float32"):
        if cond:
            gv: R.Tensor((1,), dtype="float32") = R.add(x, x)
            gv1: R.Tensor((1,), dtype="float32") = R.add(x, x)
            gv2: R.Tensor((1,), dtype="float32") = R.multiply(gv, gv1)
            y: R.Tensor((1,), dtype="float32") = gv2
        else:
            gv3: R.Tensor((1,), dtype="float32") = R.multiply(x, x)
            gv4: R.Tensor((1,), dtype="float32") = R.multiply(x, x)
            gv5: R.Tensor((1,), dtype="float32") = R.add(gv3, gv4)
            y: R.Tensor((1,), dtype="float32") = gv5
        return y
