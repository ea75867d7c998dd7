#pragma once
/// @file MpiSession.h
/// MPI initialised for the lifetime of one object (MPI_THREAD_MULTIPLE: a worker's heartbeat
/// thread and its training thread both talk to rank 0).

#include <QString>

namespace tb::cluster {

/// Initialises MPI in the constructor and finalises it in the destructor. One per process.
class MpiSession {
public:
    MpiSession(int* argc, char*** argv);
    ~MpiSession();
    MpiSession(const MpiSession&) = delete;
    MpiSession& operator=(const MpiSession&) = delete;

    /// False (with error()) when MPI could not start or cannot give MPI_THREAD_MULTIPLE.
    bool ok() const { return m_error.isEmpty(); }
    QString error() const { return m_error; }
    int rank() const { return m_rank; }
    int size() const { return m_size; }
    /// This rank's host name (MPI_Get_processor_name).
    QString host() const { return m_host; }
    /// Ends every rank of the job at once (MPI_Abort) with @p code: for errors a rank cannot
    /// report to rank 0 (e.g. it failed before the protocol started).
    [[noreturn]] void abort(int code) const;

private:
    QString m_error;
    int m_rank = 0;
    int m_size = 1;
    QString m_host;
    bool m_initialised = false;
};

} // namespace tb::cluster
