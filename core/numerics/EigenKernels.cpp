// The one copy of the Eigen kernels EigenKernels.h declares extern (see there).
#include "EigenKernels.h"

#ifdef TB_EIGEN_KERNELS
#include <Eigen/Core>

TB_EIGEN_KERNEL_INSTANTIATIONS()
#endif
