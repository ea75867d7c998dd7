// Precompiled for the targets of the core libraries, the plugins and the non-GUI benchmarks
// (cmake/Pch.cmake): the Qt Core, Eigen, oneTBB and standard headers most of their files include.
// Third-party headers, and EigenKernels.h (which changes only with Eigen): an edit to the tree's own
// headers never rebuilds a precompiled header. Every target that uses one links tb::numerics.
#pragma once

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QMap>
#include <QObject>
#include <QRegularExpression>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QVariant>
#include <QVariantMap>
#include <QtPlugin>

#include <Eigen/Core>
// Eigen's product kernels, compiled once in tb_numerics (core/numerics/EigenKernels.h).
#include <numerics/EigenKernels.h>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>
