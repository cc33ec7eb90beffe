# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor, y: R.Tensor) -> R.Tensor:
        tuple_var: R.Tuple(R.Tensor, R.Tensor) = x, y
        w: R.Tensor = tuple_var[0]
        q: R.Tensor = tuple_var[1]
        z: R.Tensor = R.add(w, q)
        gv4: R.Tensor = R.add(q, z)
        return gv4
