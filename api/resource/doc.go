// Package resource implements Quantity, the fixed-point number with a unit
// suffix that the API uses for CPU, memory and storage amounts ("100m",
// "128Mi", "1.5", "2e3"), with the syntax, rounding and canonical printing of
// Kubernetes' resource.Quantity.
//
// A Quantity is a plain value: copy it freely (DeepCopy is provided for
// symmetry with the other API types; a copy never shares mutable state).
// Reading methods (String, Cmp, Value, ...) are safe to call from several
// goroutines at once; mutating methods (Add, Sub, Neg, Set, ...) need
// exclusive access, like any Go value.
//
// The grammar accepted by ParseQuantity is
//
//	<quantity>        ::= <signedNumber><suffix>
//	<signedNumber>    ::= <number> | <sign><number>
//	<number>          ::= <digits> | <digits>.<digits> | <digits>. | .<digits>
//	<sign>            ::= "+" | "-"
//	<suffix>          ::= <binarySI> | <decimalExponent> | <decimalSI>
//	<binarySI>        ::= Ki | Mi | Gi | Ti | Pi | Ei
//	<decimalSI>       ::= n | u | m | "" | k | M | G | T | P | E
//	<decimalExponent> ::= "e" <signedNumber> | "E" <signedNumber>
//
// Values are kept exactly down to 1n (10^-9); a finer non-zero value is
// rounded away from zero to the next nano. A BinarySI value is capped at
// 2^63-1, as Kubernetes does. Decimal values are not capped: an int64 holds
// the common case and a math/big integer takes over when it overflows.
//
// String prints the canonical form: no fractional digits, the largest
// suffix that loses nothing, and the suffix family of the input (binary
// input prints binary when that is exact, else decimal): "1.5Gi" prints
// "1536Mi", "0.1" prints "100m", "1000m" prints "1".
package resource
