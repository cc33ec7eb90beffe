# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(private=True)
    def main(cond: R.Tensor((), dtype="bool"), x: R.Tensor((1,), dtype="float32")) -> R.Tensor(dtype="float32", ndim=1):
        if (cond,)[0]:
            y = R.add(x, x)
        else:
            y = R.multiply(x, x)
        return y
