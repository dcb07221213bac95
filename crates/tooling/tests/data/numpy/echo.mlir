func.func @f(%a: !hal.buffer_view) -> !hal.buffer_view { return %a : !hal.buffer_view }
func.func @g(%a: !hal.buffer_view, %b: !hal.buffer_view) -> (!hal.buffer_view, !hal.buffer_view) { return %a, %b : !hal.buffer_view, !hal.buffer_view }
func.func @s() -> (i32, f32, i64, f64) { %a = arith.constant 7 : i32
 %b = arith.constant 1.5 : f32
 %c = arith.constant 9 : i64
 %d = arith.constant 2.5 : f64
 return %a, %b, %c, %d : i32, f32, i64, f64 }
