#pragma once
/// @file EigenKernels.h
/// The heavy kernels of Eigen's dense double-precision products — the GEBP micro-kernel, the
/// panel packing and the matrix–vector kernels — compiled once, in tb_numerics
/// (EigenKernels.cpp), instead of in every file that multiplies matrices.
///
/// Including this header declares them extern (explicit instantiation declarations): the
/// file calls the copy in libtrainbench-numerics instead of compiling its own. The kernels are
/// never inlined anyway (Eigen marks them EIGEN_DONT_INLINE) and the copy is compiled from the
/// same source with the same flags (-march=native), so results are the same bit for bit. The
/// precompiled headers of the tree (cmake/pch/CorePch.h) include it; a target whose files see it
/// must link tb::numerics. The template arguments are Eigen-internal: only Eigen 3.4 gets the
/// declarations, any other version compiles the kernels where they are used, as before.
///
/// Not installed with the SDK: out-of-tree plugins compile their own kernels, as Eigen does.

#include <Eigen/Core>

#if EIGEN_VERSION_AT_LEAST(3, 4, 0) && !EIGEN_VERSION_AT_LEAST(3, 4, 90)
#define TB_EIGEN_KERNELS 1

namespace tb::num::kernels {
using Index = Eigen::Index;
using Traits = Eigen::internal::gebp_traits<double, double>;
template <int Order>
using Mapper = Eigen::internal::const_blas_data_mapper<double, Index, Order>;
using ResultMapper = Eigen::internal::blas_data_mapper<double, Index, Eigen::ColMajor, Eigen::Unaligned, 1>;
} // namespace tb::num::kernels

/// The instantiations, with @p EXTERN = extern (declarations) or nothing (EigenKernels.cpp):
/// the ones the tree's products use, by how many files compiled a copy of each.
#define TB_EIGEN_KERNEL_INSTANTIATIONS(EXTERN)                                                                    \
    EXTERN template struct Eigen::internal::gebp_kernel<double, double, tb::num::kernels::Index,                  \
                                                        tb::num::kernels::ResultMapper, tb::num::kernels::Traits::mr, \
                                                        tb::num::kernels::Traits::nr, false, false>;              \
    EXTERN template struct Eigen::internal::gemm_pack_lhs<                                                        \
        double, tb::num::kernels::Index, tb::num::kernels::Mapper<Eigen::ColMajor>, tb::num::kernels::Traits::mr, \
        tb::num::kernels::Traits::LhsProgress, tb::num::kernels::Traits::LhsPacket4Packing, Eigen::ColMajor, false, \
        false>;                                                                                                   \
    EXTERN template struct Eigen::internal::gemm_pack_lhs<                                                        \
        double, tb::num::kernels::Index, tb::num::kernels::Mapper<Eigen::RowMajor>, tb::num::kernels::Traits::mr, \
        tb::num::kernels::Traits::LhsProgress, tb::num::kernels::Traits::LhsPacket4Packing, Eigen::RowMajor, false, \
        false>;                                                                                                   \
    EXTERN template struct Eigen::internal::gemm_pack_rhs<double, tb::num::kernels::Index,                        \
                                                          tb::num::kernels::Mapper<Eigen::ColMajor>,              \
                                                          tb::num::kernels::Traits::nr, Eigen::ColMajor, false, false>; \
    EXTERN template struct Eigen::internal::general_matrix_vector_product<                                        \
        tb::num::kernels::Index, double, tb::num::kernels::Mapper<Eigen::ColMajor>, Eigen::ColMajor, false, double, \
        tb::num::kernels::Mapper<Eigen::RowMajor>, false, 0>;                                                     \
    EXTERN template struct Eigen::internal::general_matrix_vector_product<                                        \
        tb::num::kernels::Index, double, tb::num::kernels::Mapper<Eigen::RowMajor>, Eigen::RowMajor, false, double, \
        tb::num::kernels::Mapper<Eigen::ColMajor>, false, 0>;

TB_EIGEN_KERNEL_INSTANTIATIONS(extern)

#endif
