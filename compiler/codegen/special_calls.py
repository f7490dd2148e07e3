"""Source templates for the special functions evaluated in runtime/special.py: op name (as
lowerings call `ops.<name>`) -> the `sp.` call a Triton kernel makes (sp: runtime/special.py). Kept apart from
codegen/triton.py's tables, which merge them."""

# unary: {0} the argument
UNARY = {
    "airy_ai": "sp.airy_ai({0})",
    "bessel_j0": "sp.bessel_jy({0}, 0, False)",
    "bessel_j1": "sp.bessel_jy({0}, 1, False)",
    "bessel_y0": "sp.bessel_jy({0}, 0, True)",
    "bessel_y1": "sp.bessel_jy({0}, 1, True)",
    "modified_bessel_k0": "sp.bessel_k({0}, 0, False)",
    "modified_bessel_k1": "sp.bessel_k({0}, 1, False)",
    "scaled_modified_bessel_k0": "sp.bessel_k({0}, 0, True)",
    "scaled_modified_bessel_k1": "sp.bessel_k({0}, 1, True)",
    "spherical_bessel_j0": "sp.spherical_j0({0})",
    "ndtri": "sp.ndtri({0})",
}

# the orthogonal polynomials P_n(x), in sp.orth_poly's numbering of the families
POLYNOMIALS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
               "chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
               "laguerre_polynomial_l", "legendre_polynomial_p",
               "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
               "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w"]

# binary: {0}, {1} the arguments in the ATen op's order
BINARY = {name: "sp.orth_poly({0}, {1}, %d)" % kind for kind, name in enumerate(POLYNOMIALS)}
BINARY.update({"igamma": "sp.igamma({0}, {1}, False)", "igammac": "sp.igamma({0}, {1}, True)",
               "zeta": "sp.zeta({0}, {1})"})
