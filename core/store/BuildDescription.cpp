#include "BuildInfo.h"

#include <QFile>
#include <QStringList>

namespace tb {

namespace {

// The fields of /proc/cpuinfo's first processor: "model name", "vendor_id", "cpu family", "model".
QString readCpuModel()
{
    QFile f(QStringLiteral("/proc/cpuinfo"));
    if (!f.open(QIODevice::ReadOnly))
        return QStringLiteral("unknown");
    QString name, vendor, family, model;
    // /proc files report a size of 0, so atEnd() is true from the start: read lines until none
    // comes, the first processor's block only.
    for (;;) {
        const QByteArray raw = f.readLine(4096);
        if (raw.isEmpty())
            break;
        const QByteArray line = raw.trimmed();
        if (line.isEmpty() && !name.isEmpty())
            break;  // the end of the first processor's block
        const int colon = line.indexOf(':');
        if (colon < 0)
            continue;
        const QByteArray key = line.left(colon).trimmed();
        const QString value = QString::fromUtf8(line.mid(colon + 1)).trimmed();
        if (key == "model name")
            name = value;
        else if (key == "vendor_id")
            vendor = value;
        else if (key == "cpu family")
            family = value;
        else if (key == "model")
            model = value;
    }
    if (name.isEmpty() && vendor.isEmpty())
        return QStringLiteral("unknown");
    QStringList what;
    if (!vendor.isEmpty())
        what << vendor;
    if (!family.isEmpty())
        what << QStringLiteral("family %1").arg(family);
    if (!model.isEmpty())
        what << QStringLiteral("model %1").arg(model);
    if (name.isEmpty())
        return what.join(QLatin1Char(' '));
    return what.isEmpty() ? name : QStringLiteral("%1 (%2)").arg(name, what.join(QLatin1Char(' ')));
}

} // namespace

QString cpuModel()
{
    static const QString model = readCpuModel();
    return model;
}

namespace {

QString describeBuild()
{
    // This file is compiled with the tree's optimisation flags (tb_optimise), so the macros
    // below say what every library of the build may use.
    QStringList isa;
#if defined(__AVX512F__)
    isa << QStringLiteral("AVX-512F");
#endif
#if defined(__AVX2__)
    isa << QStringLiteral("AVX2");
#endif
#if defined(__FMA__)
    isa << QStringLiteral("FMA");
#endif
#if !defined(__AVX2__) && defined(__AVX__)
    isa << QStringLiteral("AVX");
#endif
#if !defined(__AVX__) && defined(__SSE4_2__)
    isa << QStringLiteral("SSE4.2");
#endif
#if !defined(__AVX__) && !defined(__SSE4_2__) && defined(__SSE2__)
    isa << QStringLiteral("SSE2");
#endif
#if defined(__clang__)
    const QString compiler = QStringLiteral("Clang %1.%2.%3").arg(__clang_major__).arg(__clang_minor__).arg(__clang_patchlevel__);
#elif defined(__GNUC__)
    const QString compiler = QStringLiteral("GCC %1.%2.%3").arg(__GNUC__).arg(__GNUC_MINOR__).arg(__GNUC_PATCHLEVEL__);
#else
    const QString compiler = QStringLiteral("an unknown compiler");
#endif
    QString target = TB_BUILD_NATIVE ? QStringLiteral("-march=native") : QStringLiteral("generic x86-64");
    const QString extra = QStringLiteral(TB_BUILD_EXTRA_FLAGS).simplified();
    if (!extra.isEmpty())
        target += QLatin1Char(' ') + extra;
    const QString type = QStringLiteral(TB_BUILD_TYPE).isEmpty() ? QStringLiteral("no build type")
                                                                 : QStringLiteral(TB_BUILD_TYPE);
    return QStringLiteral("%1, %2, %3: %4").arg(compiler, type, target, isa.join(QLatin1Char(' ')));
}

} // namespace

QString buildDescription()
{
    static const QString description = describeBuild();  // every run records it: made once
    return description;
}

} // namespace tb
