# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor, y: R.Tensor) -> R.Tensor:
        w: R.Tensor = y
        q: R.Tensor = x
        z: R.Tensor = R.add(w, q)
        gv3: R.Tensor = R.add(q, z)
        return gv3
