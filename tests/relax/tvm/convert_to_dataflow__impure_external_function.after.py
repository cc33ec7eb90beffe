# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(pure=False)
    def extra(x: R.Tensor, y: R.Tensor) -> R.Tensor:
        with R.dataflow():
            z: R.Tensor = R.add(x, y)
            q: R.Tensor = R.matmul(z, x, out_dtype=None)
            w: R.Tensor = R.nn.relu(q)
            R.output(w)
        R.print(format=R.str("Whoa"))
        return w

    @R.function(pure=False)
    def main(x: R.Tensor, y: R.Tensor) -> R.Tensor:
        cls = Module
        with R.dataflow():
            z: R.Tensor = R.add(x, y)
            w: R.Tensor = R.multiply(z, z)
            R.output(z, w)
        q: R.Tensor = cls.extra(z, w)
        return q