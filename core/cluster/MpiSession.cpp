#include "MpiSession.h"

#include <mpi.h>

#include <cstdlib>

namespace tb::cluster {

MpiSession::MpiSession(int* argc, char*** argv)
{
    int provided = MPI_THREAD_SINGLE;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
        m_error = QStringLiteral("MPI_Init_thread failed");
        return;
    }
    m_initialised = true;
    MPI_Comm_rank(MPI_COMM_WORLD, &m_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &m_size);
    // A dead peer must not end this rank's MPI calls with an abort: rank 0 outlives its workers.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    char name[MPI_MAX_PROCESSOR_NAME] = {};
    int length = 0;
    MPI_Get_processor_name(name, &length);
    m_host = QString::fromLocal8Bit(name, length);
    if (provided < MPI_THREAD_MULTIPLE)
        m_error = QStringLiteral("this MPI library gives thread level %1, --mpi needs MPI_THREAD_MULTIPLE (%2)")
                      .arg(provided)
                      .arg(int(MPI_THREAD_MULTIPLE));
}

MpiSession::~MpiSession()
{
    if (m_initialised)
        MPI_Finalize();
}

void MpiSession::abort(int code) const
{
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);
}

} // namespace tb::cluster
