#pragma once
/// @file BenchArguments.h
/// The command line of a benchmark program (bench/*.cpp): one parser, one spelling per option.

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>
#include <QVariantMap>

#include <cstdint>
#include <limits>
#include <stdexcept>

namespace tb::bench {

/// The options of a benchmark program, parsed with QCommandLineParser. The options several
/// programs share are declared here once (Common), so that --seeds, --threads, --data … are
/// spelled and explained alike everywhere; a program adds its own beside them. Every option
/// has a default, and may have a second one for --quick (the program's smallest meaningful
/// run, seconds rather than minutes); an option given on the command line always wins.
/// `--help` lists every option with its defaults.
///
/// @code
/// tb::bench::BenchArguments args("gradient_steps", "Cost of one update …");
/// args.add(BenchArguments::Common::Threads, "2");
/// args.add("rows", "N", "synthetic training rows", "10000", "2000");
/// … after parse(): args.integer("rows", 1)
/// @endcode
///
/// Not thread-safe: declare, parse and read it from main().
class BenchArguments {
public:
    /// Thrown for a bad command line (an unknown option, a value out of range): the program
    /// prints it and exits 2.
    class Error : public std::invalid_argument {
    public:
        using std::invalid_argument::invalid_argument;
    };

    /// The options shared by the programs, with their one spelling (in brackets).
    enum class Common {
        Threads,    ///< [--threads N] TBB worker threads of a run's arena
        Seeds,      ///< [--seeds N] runs per configuration, seeds first-seed … first-seed + N − 1
        FirstSeed,  ///< [--first-seed S] the first of those seeds
        Seed,       ///< [--seed S] the one seed (or base seed) of a program that takes one
        Data,       ///< [--data DIR, also --dir] the Fashion-MNIST folder
        TrainLimit, ///< [--train-limit N] a seeded subsample of N training rows (0 = all)
        Validation, ///< [--validation V] hold out V training rows, report accuracy on them
        Params,     ///< [--params JSON] the algorithm's parameters
        Algorithm,  ///< [--algorithm ID]
        Repeats,    ///< [--repeats N] repetitions of one measurement
        TimeBudget, ///< [--time-budget S] seconds of training per run
        Csv,        ///< [--csv FILE] results as CSV
        Plot,       ///< [--plot FILE.png] a chart
        Title,      ///< [--title TEXT] the chart's title
        Out,        ///< [--out FILE] results file
        Quiet,      ///< [--quiet] only summary lines
    };

    /// @p program: the name in messages; @p description: what the program measures, for --help.
    BenchArguments(QString program, QString description);

    /// Declares the shared option @p option with its default (empty: none) and --quick default
    /// (empty: the same). @p note is appended to the shared help text (what it means here).
    void add(Common option, const QString& defaultValue = {}, const QString& quickValue = {},
             const QString& note = {});
    /// Declares an option of this program: --@p name @p valueName.
    void add(const QString& name, const QString& valueName, const QString& help,
             const QString& defaultValue = {}, const QString& quickValue = {});
    /// Declares a switch (no value): --@p name.
    void addSwitch(const QString& name, const QString& help);
    /// Declares a positional argument, for --help.
    void addPositional(const QString& name, const QString& help, const QString& syntax = {});

    /// Parses @p arguments (the program's name first, as QCoreApplication::arguments()). --help
    /// prints the help and exits 0; --quick is always declared. Throws Error for an unknown
    /// option or a missing value.
    void parse(const QStringList& arguments);

    /// The program name given to the constructor.
    const QString& program() const { return m_program; }
    /// The help text (--help).
    QString helpText() const;

    /// True when --quick was given.
    bool quick() const { return m_quick; }
    /// True when the program declared --@p name.
    bool declares(const QString& name) const;
    /// True when --@p name was given on the command line (for a switch: present).
    bool isSet(const QString& name) const;
    /// The value of --@p name: as given, else its --quick default under --quick, else its
    /// default (empty when none). Throws std::logic_error when @p name was never declared.
    QString text(const QString& name) const;
    /// The value as an integer in [@p min, @p max]; throws Error naming the option otherwise.
    qint64 integer(const QString& name, qint64 min = std::numeric_limits<qint64>::min(),
                   qint64 max = std::numeric_limits<qint64>::max()) const;
    /// The value as a seed (an unsigned 64-bit integer); throws Error otherwise.
    std::uint64_t seed(const QString& name) const;
    /// The value as a finite real in [@p min, @p max]; throws Error otherwise.
    double real(const QString& name, double min = -std::numeric_limits<double>::max(),
                double max = std::numeric_limits<double>::max()) const;
    /// The value split at commas, empty parts dropped.
    QStringList list(const QString& name) const;
    /// The value as comma-separated integers, each in [@p min, @p max].
    QList<qint64> integers(const QString& name, qint64 min = std::numeric_limits<qint64>::min(),
                           qint64 max = std::numeric_limits<qint64>::max()) const;
    /// The value as a JSON object (empty when the value is empty); throws Error otherwise.
    QJsonObject jsonObject(const QString& name) const;
    /// Every value given for --@p name, in order (an option that may repeat).
    QStringList values(const QString& name) const;
    /// The positional arguments, in order.
    const QStringList& positional() const { return m_positional; }

    /// The error for @p name's value: "--name: why, got "value"".
    Error invalid(const QString& name, const QString& why) const;

private:
    struct Option {
        QStringList names; // the first is the one spelling; the others are accepted too
        QString valueName; // empty: a switch
        QString help;
        QString defaultValue;
        QString quickValue;
    };
    struct Positional {
        QString name, help, syntax;
    };
    const Option& option(const QString& name) const;

    QString m_program;
    QString m_description;
    QList<Option> m_options;
    QList<Positional> m_positionals;
    QMap<QString, QStringList> m_given; // by first name
    QStringList m_positional;
    bool m_quick = false;
    bool m_parsed = false;
};

} // namespace tb::bench
