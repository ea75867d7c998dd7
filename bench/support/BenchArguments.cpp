#include "BenchArguments.h"

#include <QCommandLineParser>
#include <QJsonDocument>

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace tb::bench {
namespace {

struct CommonSpec {
    QStringList names;
    const char* valueName;
    const char* help;
};

CommonSpec specOf(BenchArguments::Common c)
{
    using C = BenchArguments::Common;
    switch (c) {
    case C::Threads:
        return {{"threads"}, "N", "TBB worker threads of a run's arena"};
    case C::Seeds:
        return {{"seeds"}, "N", "runs per configuration, one seed each"};
    case C::FirstSeed:
        return {{"first-seed"}, "S", "the first seed"};
    case C::Seed:
        return {{"seed"}, "S", "the seed"};
    case C::Data:
        return {{"data", "dir"},
                "DIR",
                "the Fashion-MNIST folder (default: $TRAINBENCH_FASHION_MNIST, else "
                "/usr/share/datasets/fashion-mnist)"};
    case C::TrainLimit:
        return {{"train-limit"},
                "N",
                "train on a seeded subsample of N training rows (0: all), as the data set's train_limit"};
    case C::Validation:
        return {{"validation"},
                "V",
                "hold out V seeded training rows and report accuracy on them instead of the test set (for "
                "choosing "
                "parameters; 0: the test set)"};
    case C::Params:
        return {{"params"}, "JSON", "the algorithm's parameters, a JSON object"};
    case C::Algorithm:
        return {{"algorithm"}, "ID", "the algorithm id (trainbench-cli list)"};
    case C::Repeats:
        return {{"repeats"}, "N", "repetitions of each measurement"};
    case C::TimeBudget:
        return {{"time-budget"}, "S", "seconds of training per run (0: none)"};
    case C::Csv:
        return {{"csv"}, "FILE", "write the results as CSV to FILE"};
    case C::Plot:
        return {{"plot"}, "FILE.png", "draw a chart to FILE.png"};
    case C::Title:
        return {{"title"}, "TEXT", "the chart's title"};
    case C::Out:
        return {{"out"}, "FILE", "write the results to FILE"};
    case C::Quiet:
        return {{"quiet"}, "", "print only the summary lines"};
    }
    return {};
}

} // namespace

BenchArguments::BenchArguments(QString program, QString description)
    : m_program(std::move(program)), m_description(std::move(description))
{
}

void BenchArguments::add(Common c, const QString& defaultValue, const QString& quickValue,
                         const QString& note)
{
    const CommonSpec s = specOf(c);
    QString help = QString::fromUtf8(s.help);
    if (!note.isEmpty())
        help += QStringLiteral("; ") + note;
    m_options.append({s.names, QString::fromUtf8(s.valueName), help, defaultValue, quickValue});
}

void BenchArguments::add(const QString& name, const QString& valueName, const QString& help,
                         const QString& defaultValue, const QString& quickValue)
{
    m_options.append({{name}, valueName, help, defaultValue, quickValue});
}

void BenchArguments::addSwitch(const QString& name, const QString& help)
{
    m_options.append({{name}, {}, help, {}, {}});
}

void BenchArguments::addPositional(const QString& name, const QString& help, const QString& syntax)
{
    m_positionals.append({name, help, syntax});
}

const BenchArguments::Option& BenchArguments::option(const QString& name) const
{
    for (const Option& o : m_options)
        if (o.names.contains(name))
            return o;
    throw std::logic_error(QStringLiteral("%1: the program reads --%2, which it never declared")
                               .arg(m_program, name)
                               .toStdString());
}

QString BenchArguments::helpText() const
{
    QString text = QStringLiteral("usage: %1 [options]").arg(m_program);
    for (const Positional& p : m_positionals)
        text += QLatin1Char(' ') + (p.syntax.isEmpty() ? p.name : p.syntax);
    text += QStringLiteral("\n\n") + m_description + QStringLiteral("\n\nOptions:\n");
    auto line = [&](const QString& left, const QString& help) {
        text += QStringLiteral("  %1\n      %2\n").arg(left, help);
    };
    for (const Option& o : m_options) {
        QStringList spelled;
        for (const QString& n : o.names)
            spelled << QStringLiteral("--") + n;
        QString left = spelled.join(QStringLiteral(", "));
        if (!o.valueName.isEmpty())
            left += QLatin1Char(' ') + o.valueName;
        QString help = o.help;
        QStringList defaults;
        if (!o.defaultValue.isEmpty())
            defaults << QStringLiteral("default: %1").arg(o.defaultValue);
        if (!o.quickValue.isEmpty())
            defaults << QStringLiteral("--quick: %1").arg(o.quickValue);
        if (!defaults.isEmpty())
            help += QStringLiteral(" (%1)").arg(defaults.join(QStringLiteral("; ")));
        line(left, help);
    }
    line(QStringLiteral("--quick"),
         QStringLiteral("the smallest meaningful run (seconds): every option's --quick "
                        "default, unless given"));
    line(QStringLiteral("-h, --help"), QStringLiteral("this help"));
    for (const Positional& p : m_positionals)
        line(p.name, p.help);
    return text;
}

void BenchArguments::parse(const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    for (const Option& o : m_options)
        parser.addOption(o.valueName.isEmpty() ? QCommandLineOption(o.names, o.help)
                                               : QCommandLineOption(o.names, o.help, o.valueName));
    parser.addOption(QCommandLineOption(QStringLiteral("quick"), QStringLiteral("quick")));
    parser.addOption(
        QCommandLineOption({QStringLiteral("h"), QStringLiteral("help")}, QStringLiteral("help")));
    for (const Positional& p : m_positionals)
        parser.addPositionalArgument(p.name, p.help, p.syntax);
    if (!parser.parse(arguments))
        throw Error(QStringLiteral("%1 (--help lists the options)").arg(parser.errorText()).toStdString());
    if (parser.isSet(QStringLiteral("help"))) {
        std::fputs(qPrintable(helpText()), stdout);
        std::exit(0);
    }
    m_quick = parser.isSet(QStringLiteral("quick"));
    for (const Option& o : m_options)
        if (parser.isSet(o.names.first()))
            m_given.insert(o.names.first(),
                           o.valueName.isEmpty() ? QStringList{QString()} : parser.values(o.names.first()));
    m_positional = parser.positionalArguments();
    m_parsed = true;
}

bool BenchArguments::declares(const QString& name) const
{
    for (const Option& o : m_options)
        if (o.names.contains(name))
            return true;
    return false;
}

bool BenchArguments::isSet(const QString& name) const
{
    return m_given.contains(option(name).names.first());
}

QString BenchArguments::text(const QString& name) const
{
    if (!m_parsed)
        throw std::logic_error(
            QStringLiteral("%1: --%2 read before parse()").arg(m_program, name).toStdString());
    const Option& o = option(name);
    const auto given = m_given.constFind(o.names.first());
    if (given != m_given.constEnd())
        return given->last(); // as QCommandLineParser::value(): the last one wins
    if (m_quick && !o.quickValue.isEmpty())
        return o.quickValue;
    return o.defaultValue;
}

QStringList BenchArguments::values(const QString& name) const
{
    return m_given.value(option(name).names.first());
}

BenchArguments::Error BenchArguments::invalid(const QString& name, const QString& why) const
{
    return Error(QStringLiteral("--%1: %2, got \"%3\"").arg(name, why, text(name)).toStdString());
}

qint64 BenchArguments::integer(const QString& name, qint64 min, qint64 max) const
{
    bool ok = false;
    const qint64 v = text(name).toLongLong(&ok);
    if (!ok || v < min || v > max) {
        QString range = QStringLiteral("an integer");
        if (min != std::numeric_limits<qint64>::min() && max != std::numeric_limits<qint64>::max())
            range += QStringLiteral(" in [%1, %2]").arg(min).arg(max);
        else if (min != std::numeric_limits<qint64>::min())
            range += QStringLiteral(" ≥ %1").arg(min);
        else if (max != std::numeric_limits<qint64>::max())
            range += QStringLiteral(" ≤ %1").arg(max);
        throw invalid(name, QStringLiteral("expected ") + range);
    }
    return v;
}

std::uint64_t BenchArguments::seed(const QString& name) const
{
    bool ok = false;
    const std::uint64_t v = text(name).toULongLong(&ok);
    if (!ok)
        throw invalid(name, QStringLiteral("expected a seed (an integer in [0, 2^64))"));
    return v;
}

double BenchArguments::real(const QString& name, double min, double max) const
{
    bool ok = false;
    const double v = text(name).toDouble(&ok);
    if (!ok || !std::isfinite(v) || v < min || v > max) {
        QString range = QStringLiteral("a finite number");
        if (min != -std::numeric_limits<double>::max())
            range += QStringLiteral(" ≥ %1").arg(min);
        if (max != std::numeric_limits<double>::max())
            range += QStringLiteral(" ≤ %1").arg(max);
        throw invalid(name, QStringLiteral("expected ") + range);
    }
    return v;
}

QStringList BenchArguments::list(const QString& name) const
{
    QStringList out;
    for (const QString& part : text(name).split(QLatin1Char(','), Qt::SkipEmptyParts))
        out << part.trimmed();
    return out;
}

QList<qint64> BenchArguments::integers(const QString& name, qint64 min, qint64 max) const
{
    QList<qint64> out;
    for (const QString& part : list(name)) {
        bool ok = false;
        const qint64 v = part.toLongLong(&ok);
        if (!ok || v < min || v > max)
            throw invalid(name,
                          QStringLiteral("expected comma-separated integers in [%1, %2]").arg(min).arg(max));
        out << v;
    }
    return out;
}

QJsonObject BenchArguments::jsonObject(const QString& name) const
{
    const QString v = text(name);
    if (v.trimmed().isEmpty())
        return {};
    QJsonParseError e{};
    const QJsonDocument doc = QJsonDocument::fromJson(v.toUtf8(), &e);
    if (!doc.isObject())
        throw invalid(
            name,
            e.error == QJsonParseError::NoError
                ? QStringLiteral("expected a JSON object")
                : QStringLiteral("not a JSON object (%1 at offset %2)").arg(e.errorString()).arg(e.offset));
    return doc.object();
}

} // namespace tb::bench
