#include "DatasetPanel.h"

#include "DataError.h"
#include "DataSource.h"
#include "DatasetPreview.h"
#include "IdxLoader.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpressionValidator>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QThreadPool>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <atomic>
#include <cmath>
#include <mutex>
#include <new>

namespace tb::gui {

/// Shared between the panel and its loader threads: a thread posts its result only while the
/// panel is alive, and the destructor waits for a post in progress to finish.
struct DatasetPanel::LoadShared {
    std::mutex mutex;
    DatasetPanel* panel = nullptr;
    std::atomic<quint64> latest{0}; ///< generation of the newest load started
};

struct DatasetPanel::LoadResult {
    DatasetPreview::Summary summary;
    QString error;
    double seconds = 0;
};

namespace {

constexpr int debounceMs = 300;
constexpr double maxExactInteger = 9007199254740992.0; // 2^53: beyond it a seed is written as a string

const QStringList teachingSources{QStringLiteral("moons"), QStringLiteral("circles"), QStringLiteral("spirals"),
                                  QStringLiteral("xor")};

bool integral(const QJsonValue& v, double lo, double hi)
{
    if (!v.isDouble())
        return false;
    const double d = v.toDouble();
    return std::isfinite(d) && d == std::floor(d) && d >= lo && d <= hi;
}

/// True when @p spin shows @p v exactly (within its decimals and range).
bool fits(const QDoubleSpinBox* spin, const QJsonValue& v)
{
    if (!v.isDouble())
        return false;
    const double d = v.toDouble();
    if (!std::isfinite(d) || d < spin->minimum() || d > spin->maximum())
        return false;
    const double scale = std::pow(10.0, spin->decimals());
    return std::abs(std::round(d * scale) / scale - d) <= 1e-12 * std::max(1.0, std::abs(d));
}

/// A line edit with a "…" button that opens a file (or folder) dialog.
QWidget* pathEditor(QLineEdit*& edit, bool folder, const QString& filter, QWidget* parent)
{
    auto* box = new QWidget(parent);
    auto* h = new QHBoxLayout(box);
    h->setContentsMargins(0, 0, 0, 0);
    edit = new QLineEdit(box);
    edit->setClearButtonEnabled(true);
    auto* browse = new QToolButton(box);
    browse->setText(QStringLiteral("…"));
    browse->setToolTip(folder ? DatasetPanel::tr("Choose a folder") : DatasetPanel::tr("Choose a file"));
    h->addWidget(edit, 1);
    h->addWidget(browse);
    QLineEdit* e = edit;
    QObject::connect(browse, &QToolButton::clicked, e, [e, folder, filter] {
        const QString start = e->text().isEmpty() ? QDir::currentPath() : e->text();
        const QString chosen = folder ? QFileDialog::getExistingDirectory(e, DatasetPanel::tr("Choose a folder"), start)
                                      : QFileDialog::getOpenFileName(e, DatasetPanel::tr("Choose a file"), start, filter);
        if (!chosen.isEmpty())
            e->setText(chosen);
    });
    return box;
}

} // namespace

DatasetPanel::DatasetPanel(QWidget* parent)
    : QWidget(parent), m_baseDir(QDir::currentPath()), m_shared(std::make_shared<LoadShared>())
{
    m_shared->panel = this;
    auto* outer = new QVBoxLayout(this);
    m_form = new QFormLayout;
    m_form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    m_form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    outer->addLayout(m_form);

    m_source = new QComboBox(this);
    m_source->setObjectName(QStringLiteral("source"));
    const QList<QPair<QString, QString>> sources{
        {QStringLiteral("bpls-toy"), tr("BPLS toy functions (1-D)")},
        {QStringLiteral("moons"), tr("Two moons (2-D)")},
        {QStringLiteral("circles"), tr("Circles (2-D)")},
        {QStringLiteral("spirals"), tr("Spirals (2-D)")},
        {QStringLiteral("xor"), tr("XOR quadrants (2-D)")},
        {QStringLiteral("friedman1"), tr("Friedman #1 regression")},
        {QStringLiteral("fashion-mnist"), tr("Fashion-MNIST")},
        {QStringLiteral("idx"), tr("IDX files (MNIST format)")},
        {QStringLiteral("csv"), tr("CSV file")},
        {QStringLiteral("libsvm"), tr("LIBSVM file")},
    };
    const QStringList known = data::DataSource::sources();
    for (const auto& [id, name] : sources)
        if (known.contains(id))
            m_source->addItem(name, id);
    m_source->setToolTip(tr("Where the training and test data come from"));
    m_form->addRow(tr("Source"), m_source);

    auto on = [this](QStringList list) { return [this, list] { return list.contains(source()); }; };
    const QStringList generated = QStringList(teachingSources) << QStringLiteral("friedman1");

    // BPLS toy
    {
        auto* e = new QComboBox(this);
        e->addItem(tr("linear"), QStringLiteral("linear"));
        e->addItem(tr("non-linear"), QStringLiteral("nonlinear"));
        addField({QStringLiteral("function"), e, e, on({QStringLiteral("bpls-toy")}),
                  [e] { return QJsonValue(e->currentData().toString()); },
                  [e](const QJsonValue& v) {
                      const int i = v.isString() ? e->findData(v.toString()) : -1;
                      if (i >= 0)
                          e->setCurrentIndex(i);
                      return i >= 0;
                  },
                  [e] { e->setCurrentIndex(0); }},
                 tr("Function"), tr("The paper's toy problem: linear or non-linear target functions"));
    }
    auto realField = [&](const QString& key, const QStringList& where, double lo, double hi, int decimals,
                         double step, std::function<double()> def, const QString& label, const QString& tip) {
        auto* e = new QDoubleSpinBox(this);
        e->setRange(lo, hi);
        e->setDecimals(decimals);
        e->setSingleStep(step);
        e->setKeyboardTracking(false);
        addField({key, e, e, on(where), [e] { return QJsonValue(e->value()); },
                  [e](const QJsonValue& v) {
                      if (!fits(e, v))
                          return false;
                      e->setValue(v.toDouble());
                      return true;
                  },
                  [e, def] { e->setValue(def()); }},
                 label, tip);
    };
    // "all" (0) leaves the key out, as the file would.
    auto intField = [&](const QString& key, std::function<bool()> active, int lo, int hi, std::function<int()> def,
                        const QString& zeroText, const QString& label, const QString& tip) {
        auto* e = new QSpinBox(this);
        e->setRange(zeroText.isEmpty() ? lo : 0, hi);
        if (!zeroText.isEmpty())
            e->setSpecialValueText(zeroText);
        e->setKeyboardTracking(false);
        e->setAccelerated(true);
        const bool omitZero = !zeroText.isEmpty();
        addField({key, e, e, std::move(active),
                  [e, omitZero] { return omitZero && e->value() == 0 ? QJsonValue(QJsonValue::Undefined) : QJsonValue(e->value()); },
                  [e, lo, hi](const QJsonValue& v) {
                      if (!integral(v, lo, hi))
                          return false;
                      e->setValue(int(v.toDouble()));
                      return true;
                  },
                  [e, def] { e->setValue(def()); }},
                 label, tip);
    };
    auto pathField = [&](const QString& key, std::function<bool()> active, bool folder, const QString& filter,
                         const QString& label, const QString& tip, const QString& placeholder = {}) {
        QLineEdit* e = nullptr;
        QWidget* box = pathEditor(e, folder, filter, this);
        e->setPlaceholderText(placeholder);
        addField({key, box, e, std::move(active),
                  [e] { return e->text().trimmed().isEmpty() ? QJsonValue(QJsonValue::Undefined) : QJsonValue(e->text().trimmed()); },
                  [e](const QJsonValue& v) {
                      if (!v.isString())
                          return false;
                      e->setText(v.toString());
                      return true;
                  },
                  [e] { e->clear(); }},
                 label, tip);
    };

    realField(QStringLiteral("sigma"), {QStringLiteral("bpls-toy")}, 0, 1000, 4, 0.01, [] { return 0.0; },
              tr("Noise σ"), tr("Standard deviation of the Gaussian noise added to the training targets"));
    intField(QStringLiteral("samples"), on(generated), 2, 10'000'000,
             [this] { return source() == u"friedman1" ? 1000 : 400; }, {}, tr("Samples"),
             tr("Rows generated in total (train + test)"));
    intField(QStringLiteral("features"), on({QStringLiteral("friedman1")}), 5, 100'000, [] { return 10; }, {},
             tr("Features"), tr("Input columns; the first 5 carry the signal, the rest are noise"));
    realField(QStringLiteral("noise"), generated, 0, 1000, 4, 0.05,
              [this] { return source() == u"friedman1" ? 1.0 : 0.1; }, tr("Noise"),
              tr("Noise level of the generator (a noise sweep varies it)"));

    // Files
    const QString fashionDir = data::IdxLoader::fashionMnistDir();
    pathField(QStringLiteral("dir"), on({QStringLiteral("fashion-mnist")}), true, {}, tr("Folder"),
              tr("Folder with the four Fashion-MNIST IDX files (.gz or not); empty: found automatically"),
              fashionDir.isEmpty() ? tr("not found: choose the folder") : tr("automatic: %1").arg(fashionDir));
    const QString idxFilter = tr("IDX files (*-ubyte *-ubyte.gz *.idx *.gz);;All files (*)");
    pathField(QStringLiteral("train_images"), on({QStringLiteral("idx")}), false, idxFilter, tr("Train images"), tr("IDX image file"));
    pathField(QStringLiteral("train_labels"), on({QStringLiteral("idx")}), false, idxFilter, tr("Train labels"), tr("IDX label file"));
    pathField(QStringLiteral("test_images"), on({QStringLiteral("idx")}), false, idxFilter, tr("Test images"), tr("IDX image file"));
    pathField(QStringLiteral("test_labels"), on({QStringLiteral("idx")}), false, idxFilter, tr("Test labels"), tr("IDX label file"));
    intField(QStringLiteral("classes"), on({QStringLiteral("idx")}), 1, 256, [] { return 10; }, {}, tr("Classes"),
             tr("Number of classes; labels must lie in 0 … classes − 1"));
    const QStringList images{QStringLiteral("fashion-mnist"), QStringLiteral("idx")};
    intField(QStringLiteral("train_limit"), on(images), 1, 100'000'000, [] { return 0; }, tr("all"),
             tr("Train rows"), tr("A seeded random subset of the training images; \"all\" uses every one"));
    intField(QStringLiteral("test_limit"), on(images), 1, 100'000'000, [] { return 0; }, tr("all"),
             tr("Test rows"), tr("A seeded random subset of the test images; \"all\" uses every one"));

    const QStringList tables{QStringLiteral("csv"), QStringLiteral("libsvm")};
    pathField(QStringLiteral("file"), on(tables), false, tr("Data files (*.csv *.txt *.libsvm *.svm);;All files (*)"),
              tr("File"), tr("Training data (or all data, with a test fraction)"));
    {
        auto* e = new QLineEdit(this);
        e->setPlaceholderText(tr("column name, or y1, y2"));
        addField({QStringLiteral("target"), e, e, on({QStringLiteral("csv")}),
                  [e] {
                      QStringList cols;
                      for (const auto& c : e->text().split(QLatin1Char(','), Qt::SkipEmptyParts))
                          if (!c.trimmed().isEmpty())
                              cols << c.trimmed();
                      if (cols.isEmpty())
                          return QJsonValue(QJsonValue::Undefined);
                      return cols.size() == 1 ? QJsonValue(cols.first()) : QJsonValue(QJsonArray::fromStringList(cols));
                  },
                  [e](const QJsonValue& v) {
                      if (v.isString() && !v.toString().contains(QLatin1Char(','))) {
                          e->setText(v.toString());
                          return true;
                      }
                      if (!v.isArray() || v.toArray().isEmpty())
                          return false;
                      QStringList cols;
                      for (const auto& c : v.toArray()) {
                          if (!c.isString() || c.toString().contains(QLatin1Char(',')) || c.toString().trimmed() != c.toString() ||
                              c.toString().isEmpty())
                              return false; // could not be written back the same way
                          cols << c.toString();
                      }
                      if (cols.size() == 1)
                          return false; // ["y"] would come back as "y"
                      e->setText(cols.join(QStringLiteral(", ")));
                      return true;
                  },
                  [e] { e->clear(); }},
                 tr("Target"), tr("Target column; several, comma-separated, for multi-output regression"));
    }
    {
        auto* e = new QComboBox(this);
        e->addItem(tr("classification"), QStringLiteral("classification"));
        e->addItem(tr("regression"), QStringLiteral("regression"));
        addField({QStringLiteral("task"), e, e, on(tables), [e] { return QJsonValue(e->currentData().toString()); },
                  [e](const QJsonValue& v) {
                      const int i = v.isString() ? e->findData(v.toString()) : -1;
                      if (i >= 0)
                          e->setCurrentIndex(i);
                      return i >= 0;
                  },
                  [e] { e->setCurrentIndex(0); }},
                 tr("Task"), tr("Classification: the target holds class names; regression: numbers"));
    }
    intField(QStringLiteral("features"), on({QStringLiteral("libsvm")}), 1, 100'000'000, [] { return 0; },
             tr("from the file"), tr("Features"), tr("Input width; \"from the file\" uses the largest index of the training file"));

    m_testMode = new QComboBox(this);
    m_testMode->setObjectName(QStringLiteral("test_mode"));
    m_testMode->addItem(tr("random fraction of the file"), QStringLiteral("fraction"));
    m_testMode->addItem(tr("separate test file"), QStringLiteral("file"));
    m_testModeRow = m_testMode;
    m_form->addRow(tr("Test set"), m_testMode);
    auto fileMode = [this] { return m_testMode->currentIndex() == 1; };
    pathField(QStringLiteral("test_file"), [this, tables, fileMode] { return tables.contains(source()) && fileMode(); },
              false, tr("Data files (*.csv *.txt *.libsvm *.svm);;All files (*)"), tr("Test file"),
              tr("Test data with the same columns as the training file"));
    realField(QStringLiteral("test_fraction"), {}, 0.001, 0.999, 3, 0.05, [] { return 0.3; }, tr("Test fraction"),
              tr("Share of the rows held out for testing, split with the seed"));
    m_fields.last().active = [this, generated, tables, fileMode] {
        return generated.contains(source()) || (tables.contains(source()) && !fileMode());
    };

    // Every source
    {
        auto* e = new QLineEdit(this);
        e->setValidator(new QRegularExpressionValidator(QRegularExpression(QStringLiteral("\\d{0,20}")), e));
        e->setPlaceholderText(tr("the experiment's seed"));
        addField({QStringLiteral("seed"), e, e, [] { return true; },
                  [e] {
                      bool ok = false;
                      const qulonglong s = e->text().toULongLong(&ok);
                      if (!ok)
                          return QJsonValue(QJsonValue::Undefined);
                      return double(s) <= maxExactInteger ? QJsonValue(double(s)) : QJsonValue(e->text());
                  },
                  [e](const QJsonValue& v) {
                      if (integral(v, 0, maxExactInteger)) {
                          e->setText(QString::number(qulonglong(v.toDouble())));
                          return true;
                      }
                      bool ok = false;
                      if (v.isString() && v.toString().size() <= 20 && v.toString().toULongLong(&ok) && ok &&
                          QString::number(v.toString().toULongLong()) == v.toString()) {
                          e->setText(v.toString());
                          return true;
                      }
                      return false;
                  },
                  [e] { e->clear(); }},
                 tr("Split seed"), tr("Seed of generation, split and subsets; empty: the experiment's seed"));
    }
    {
        auto* e = new QCheckBox(tr("Standardise inputs"), this);
        addField({QStringLiteral("standardise"), e, e, [] { return true; }, [e] { return QJsonValue(e->isChecked()); },
                  [e](const QJsonValue& v) {
                      if (!v.isBool())
                          return false;
                      e->setChecked(v.toBool());
                      return true;
                  },
                  [e] { e->setChecked(false); }},
                 QString(), tr("Zero mean, unit variance per input, fitted on the training set and applied to both"));
    }

    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("error"));
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(QStringLiteral("color: #c0392b;"));
    m_error->setVisible(false);
    outer->addWidget(m_error);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_status->setStyleSheet(QStringLiteral("color: gray;"));
    outer->addWidget(m_status);
    m_preview = new DatasetPreview(this);
    outer->addWidget(m_preview, 1);

    m_debounce = new QTimer(this);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(debounceMs);
    connect(m_debounce, &QTimer::timeout, this, &DatasetPanel::startLoad);
    connect(m_source, &QComboBox::currentIndexChanged, this, &DatasetPanel::onSourceChanged);
    connect(m_testMode, &QComboBox::currentIndexChanged, this, [this] {
        if (m_settingSpec)
            return;
        m_overrides.remove(QStringLiteral("test_file"));
        m_overrides.remove(QStringLiteral("test_fraction"));
        updateVisibility();
        onUserEdit(QString());
    });

    const int moons = m_source->findData(QStringLiteral("moons"));
    {
        const QSignalBlocker block(m_source);
        m_source->setCurrentIndex(std::max(0, moons));
    }
    resetFields();
    m_lastTeachingFamily = source();
    updateVisibility();
    m_debounce->start();
}

DatasetPanel::~DatasetPanel()
{
    // A loader thread holding the lock is posting to us: wait for it, then stop further posts.
    // A post already queued is discarded with this object's pending events.
    const std::lock_guard lock(m_shared->mutex);
    m_shared->panel = nullptr;
}

void DatasetPanel::addField(Field f, const QString& label, const QString& tip)
{
    f.editor->setToolTip(tip);
    if (f.editor->objectName().isEmpty())
        f.editor->setObjectName(f.key);
    if (label.isEmpty())
        m_form->addRow(f.row);
    else
        m_form->addRow(label, f.row);
    const QString key = f.key;
    auto edited = [this, key] { onUserEdit(key); };
    if (auto* s = qobject_cast<QSpinBox*>(f.editor))
        connect(s, &QSpinBox::valueChanged, this, edited);
    else if (auto* d = qobject_cast<QDoubleSpinBox*>(f.editor))
        connect(d, &QDoubleSpinBox::valueChanged, this, edited);
    else if (auto* c = qobject_cast<QComboBox*>(f.editor))
        connect(c, &QComboBox::currentIndexChanged, this, edited);
    else if (auto* b = qobject_cast<QCheckBox*>(f.editor))
        connect(b, &QCheckBox::toggled, this, edited);
    else if (auto* l = qobject_cast<QLineEdit*>(f.editor))
        connect(l, &QLineEdit::textChanged, this, edited);
    m_fields.append(std::move(f));
}

QString DatasetPanel::source() const
{
    return m_source->currentData().toString();
}

void DatasetPanel::updateVisibility()
{
    for (const auto& f : m_fields)
        m_form->setRowVisible(f.row, f.active());
    const QString s = source();
    m_form->setRowVisible(m_testModeRow, s == u"csv" || s == u"libsvm");
}

void DatasetPanel::resetFields()
{
    for (const auto& f : m_fields) {
        const QSignalBlocker block(f.editor);
        f.reset();
    }
    const QSignalBlocker block(m_testMode);
    m_testMode->setCurrentIndex(0);
}

void DatasetPanel::onUserEdit(const QString& key)
{
    if (m_settingSpec)
        return;
    if (!key.isEmpty())
        m_overrides.remove(key); // the user's value replaces the one the editor could not show
    m_debounce->start();
    Q_EMIT changed();
}

void DatasetPanel::onSourceChanged()
{
    if (m_settingSpec)
        return;
    m_overrides = QJsonObject(); // they belonged to the file's source
    // Samples and noise have different defaults for the 2-D sets and Friedman #1.
    const QString family = source() == u"friedman1" ? QStringLiteral("friedman1") : QStringLiteral("teaching");
    if (family != m_lastTeachingFamily)
        for (const auto& f : m_fields)
            if (f.key == u"samples" || f.key == u"noise") {
                const QSignalBlocker block(f.editor);
                f.reset();
            }
    m_lastTeachingFamily = family;
    updateVisibility();
    m_debounce->start();
    Q_EMIT changed();
}

QJsonObject DatasetPanel::spec() const
{
    QJsonObject o;
    o.insert(QStringLiteral("source"), source());
    for (const auto& f : m_fields) {
        if (!f.active())
            continue;
        const QJsonValue v = f.read();
        if (!v.isUndefined())
            o.insert(f.key, v);
    }
    for (auto it = m_overrides.begin(); it != m_overrides.end(); ++it)
        o.insert(it.key(), it.value());
    return o;
}

void DatasetPanel::setSpec(const QJsonObject& spec)
{
    m_settingSpec = true;
    m_overrides = QJsonObject();
    const QJsonValue src = spec.value(QStringLiteral("source"));
    const int index = src.isString() ? m_source->findData(src.toString()) : -1;
    if (index >= 0)
        m_source->setCurrentIndex(index);
    else
        m_overrides.insert(QStringLiteral("source"), src.isUndefined() ? QJsonValue(QJsonValue::Null) : src);
    resetFields();
    m_testMode->setCurrentIndex(spec.contains(QStringLiteral("test_file")) ? 1 : 0);
    updateVisibility();
    for (auto it = spec.begin(); it != spec.end(); ++it) {
        if (it.key() == u"source")
            continue;
        const Field* field = nullptr;
        for (const auto& f : m_fields)
            if (f.key == it.key() && f.active())
                field = &f;
        if (!field || !field->write(it.value()))
            m_overrides.insert(it.key(), it.value());
    }
    m_lastTeachingFamily = source() == u"friedman1" ? QStringLiteral("friedman1") : QStringLiteral("teaching");
    m_settingSpec = false;
    m_debounce->start();
    Q_EMIT changed();
}

Task DatasetPanel::task() const
{
    if (const auto t = data::DataSource::task(spec()))
        return *t;
    const QString s = source();
    if (s == u"bpls-toy" || s == u"friedman1")
        return Task::Regression;
    if (s == u"csv" || s == u"libsvm")
        for (const auto& f : m_fields)
            if (f.key == u"task")
                return f.read().toString() == u"regression" ? Task::Regression : Task::Classification;
    return Task::Classification;
}

bool DatasetPanel::hasNoiseLevel() const
{
    return data::DataSource::hasNoiseLevel(spec());
}

void DatasetPanel::setBaseDir(const QString& dir)
{
    m_baseDir = dir;
    m_debounce->start();
}

QWidget* DatasetPanel::editor(const QString& key) const
{
    if (key == u"source")
        return m_source;
    if (key == u"test_mode")
        return m_testMode;
    for (const auto& f : m_fields)
        if (f.key == key && f.active())
            return f.editor;
    return nullptr;
}

void DatasetPanel::refreshPreview()
{
    startLoad();
}

void DatasetPanel::setError(const QString& message)
{
    m_lastError = message;
    m_error->setText(message);
    m_error->setVisible(!message.isEmpty());
}

void DatasetPanel::startLoad()
{
    m_debounce->stop();
    const quint64 generation = ++m_generation;
    m_shared->latest = generation;
    const QJsonObject s = spec();
    if (const QString problem = data::DataSource::validate(s); !problem.isEmpty()) {
        m_loading = false;
        setError(problem);
        m_status->clear();
        m_preview->setMessage(tr("No preview until the dataset settings are fixed."));
        Q_EMIT previewReady();
        return;
    }
    m_loading = true;
    m_status->setText(tr("Loading %1 …").arg(data::DataSource::describe(s)));
    // The global pool, because QCoreApplication waits for its tasks on exit: a load still
    // running when the window closes finishes before static data is torn down.
    QThreadPool::globalInstance()->start([shared = m_shared, generation, s, baseDir = m_baseDir] {
        if (shared->latest != generation)
            return; // superseded while queued; the newer load reports
        LoadResult r;
        QElapsedTimer clock;
        clock.start();
        try {
            r.summary = DatasetPreview::summarise(data::DataSource::load(s, baseDir));
        } catch (const data::DataError& e) {
            r.error = e.text();
        } catch (const std::bad_alloc&) {
            r.error = tr("not enough memory to load %1").arg(data::DataSource::describe(s));
        } catch (const std::exception& e) {
            r.error = QString::fromUtf8(e.what());
        }
        r.seconds = double(clock.nsecsElapsed()) * 1e-9;
        const std::lock_guard lock(shared->mutex);
        if (DatasetPanel* panel = shared->panel)
            QMetaObject::invokeMethod(
                panel, [panel, generation, r] { panel->finishLoad(generation, r); }, Qt::QueuedConnection);
    });
}

void DatasetPanel::finishLoad(quint64 generation, const LoadResult& result)
{
    if (generation != m_generation)
        return; // an edit superseded this load; its own result follows
    m_loading = false;
    setError(result.error);
    if (result.error.isEmpty()) {
        m_preview->setSummary(result.summary);
        const QString took = result.seconds < 1 ? tr("%1 ms").arg(std::lround(result.seconds * 1000))
                                                : tr("%1 s").arg(result.seconds, 0, 'f', 2);
        m_status->setText(tr("%1 (loaded in %2)").arg(result.summary.description, took));
    } else {
        m_preview->setMessage(tr("No preview: the data could not be loaded."));
        m_status->clear();
    }
    Q_EMIT previewReady();
}

} // namespace tb::gui
