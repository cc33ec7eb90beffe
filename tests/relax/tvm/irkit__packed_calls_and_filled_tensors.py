# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

m = TypeVar("m")
@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((m,), dtype="float32"), i: R.Tensor((), dtype="int32")) -> R.Tuple(R.Any, R.Tuple(R.Tensor((2, 3)), R.Any), R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((3,), dtype="float32")), R.Tensor((2, 3), dtype="float32"), R.Tensor(("(m + 1) // 2",), dtype="float32"), R.Tensor(("m - 1",), dtype="int64"), R.Tensor((m, 3), dtype="int32"), R.Tensor((m,), dtype="float32"), R.Tensor((4,), dtype="int64"), R.Tensor((), dtype="bool"), R.Tuple(R.Tensor((), dtype="bool"), R.Any), R.Tensor((2, 3))):
        a: R.Any = R.call_packed("f", x)
        b: R.Tuple(R.Tensor((2, 3)), R.Any) = R.call_packed("f", x, ty_args=(R.Tensor((2, 3)), R.Any))
        b2: R.Tensor((2, 3)) = R.call_packed("extern_func_name", x, ty_args=(R.Tensor((2, 3)),))
        c = R.call_dps_packed("g", (x, x), out_ty=[R.Tensor((2, 3), dtype="float32"), R.Tensor((3,), dtype="float32")])
        d = R.call_dps_packed("g", (x,), out_ty=R.Tensor((2, 3), dtype="float32"))
        p: R.Tensor((), dtype="bool") = R.call_pure_packed("test.vm.less", i, R.const(10, "int32"), ty_args=(R.Tensor((), dtype="bool"),))
        q: R.Tuple(R.Tensor((), dtype="bool"), R.Any) = R.call_pure_packed("test.vm.less", i, ty_args=(R.Tensor((), dtype="bool"), R.Any))
        e: R.Tensor(((m + 1) // 2,), dtype="float32") = R.arange(0, m, 2, dtype="float32")
        f: R.Tensor((m - 1,), dtype="int64") = R.arange(1, m, 1, dtype="int64")
        g: R.Tensor((m, 3), dtype="int32") = R.zeros(R.shape([m, 3]), dtype="int32")
        h: R.Tensor((m,), dtype="float32") = R.ones(R.shape([m]), dtype="float32")
        k: R.Tensor((4,), dtype="int64") = R.arange(10, 0, -3, dtype="int64")
        return (a, b, c, d, e, f, g, h, k, p, q, b2)
