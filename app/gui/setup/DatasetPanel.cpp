#include "DatasetPanel.h"

#include "CsvRowsTable.h"
#include "DatasetFetchRow.h"
#include "DatasetPreview.h"
#include "widgets/KeptTextSpinBox.h"

#include <data/DataKeys.h>
#include <data/DataSource.h>
#include <data/DataSourceRegistry.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStackedWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace tb::gui {

using data::DataSourceEntry;

namespace {

constexpr int debounceMs = 300;

} // namespace

DatasetPanel::DatasetPanel(QWidget* parent) : QWidget(parent), m_baseDir(QDir::currentPath())
{
    auto* outer = new QVBoxLayout(this);
    m_suiteNote = new QLabel(this);
    m_suiteNote->setObjectName(QStringLiteral("suite_note"));
    m_suiteNote->setWordWrap(true);
    m_suiteNote->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_suiteNote->setStyleSheet(QStringLiteral("QLabel { background: #eaf2fb; border: 1px solid #a9c7e8; border-radius: 3px; "
                                              "padding: 4px; color: #1b3a5c; }"));
    m_suiteNote->setVisible(false);
    outer->addWidget(m_suiteNote);
    auto* top = new QFormLayout;
    top->setRowWrapPolicy(QFormLayout::WrapLongRows);
    top->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    outer->addLayout(top);
    m_source = new QComboBox(this);
    m_source->setObjectName(QStringLiteral("source"));
    m_source->setToolTip(tr("Where the training and test data come from"));
    top->addRow(tr("Source"), m_source);
    // A catalogue set: its state in the cache, and Fetch / Cancel with the transfer's progress.
    m_fetchRow = new DatasetFetchRow(this);
    connect(m_fetchRow, &DatasetFetchRow::finished, this, [this](bool ok, const QString& id) {
        // The preview said the set is missing; now it can load (a set that is not shown waits).
        if (ok && id == source())
            refreshPreview();
        Q_EMIT fetchFinished(ok);
    });
    top->addRow(QString(), m_fetchRow);
    m_stack = new QStackedWidget(this);
    outer->addWidget(m_stack);
    for (const DataSourceEntry* entry : data::DataSourceRegistry::all()) {
        m_source->addItem(entry->info.label, entry->info.id);
        m_source->setItemData(m_source->count() - 1, entry->info.description, Qt::ToolTipRole);
        buildPage(*entry);
    }

    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("error"));
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(QStringLiteral("color: #c0392b;"));
    m_error->setVisible(false);
    outer->addWidget(m_error);
    m_warning = new QLabel(this);
    m_warning->setObjectName(QStringLiteral("warning"));
    m_warning->setWordWrap(true);
    m_warning->setStyleSheet(QStringLiteral("color: #b9770e;"));
    m_warning->setVisible(false);
    outer->addWidget(m_warning);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_status->setStyleSheet(QStringLiteral("color: gray;"));
    outer->addWidget(m_status);
    m_rows = new CsvRowsTable(this);
    outer->addWidget(m_rows);
    m_preview = new DatasetPreview(this);
    outer->addWidget(m_preview, 1);
    m_loader = new PreviewLoader(this);
    connect(m_loader, &PreviewLoader::finished, this, &DatasetPanel::finishLoad);

    m_debounce = new QTimer(this);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(debounceMs);
    connect(m_debounce, &QTimer::timeout, this, &DatasetPanel::startLoad);
    connect(m_source, &QComboBox::currentIndexChanged, this, &DatasetPanel::onSourceChanged);

    const int moons = m_source->findData(QStringLiteral("moons"));
    {
        const QSignalBlocker block(m_source);
        m_source->setCurrentIndex(std::max(0, moons));
    }
    m_stack->setCurrentIndex(m_source->currentIndex());
    updateVisibility();
    m_debounce->start();
}

// The fetch row cancels and waits for its fetch, the loader lets go of its loads (children).
DatasetPanel::~DatasetPanel() = default;

void DatasetPanel::setSuite(const QStringList& names, const QString& where, const QString& problem)
{
    m_suite = !names.isEmpty() || !problem.isEmpty();
    // The form shows one set: a suite's first, read-only, since an edit could not reach the file's sets.
    m_source->setEnabled(!m_suite);
    m_stack->setEnabled(!m_suite);
    m_suiteNote->setVisible(m_suite);
    if (!m_suite) {
        m_suiteNote->clear();
        return;
    }
    const QString origin = where.isEmpty() ? tr("listed in the experiment file's “datasets”")
                                           : tr("from the suite file %1").arg(where.toHtmlEscaped());
    if (!problem.isEmpty()) {
        m_suiteNote->setText(tr("<b>Suite</b> %1 — its sets cannot be read: %2").arg(origin, problem.toHtmlEscaped()));
        return;
    }
    QStringList escaped;
    for (const QString& n : names)
        escaped << n.toHtmlEscaped();
    m_suiteNote->setText(tr("<b>Suite of %1 data sets</b>, %2: %3.<br>Each runs as an experiment of its own. Shown "
                            "below, read-only: the first, <b>%4</b>. The sets are edited in the file; saving keeps "
                            "them.")
                             .arg(names.size())
                             .arg(origin, escaped.join(QStringLiteral(", ")), escaped.first()));
}

void DatasetPanel::buildPage(const DataSourceEntry& entry)
{
    Page page;
    page.entry = &entry;
    page.widget = new QWidget(m_stack);
    page.form = new QFormLayout(page.widget);
    page.form->setContentsMargins(0, 0, 0, 0);
    page.form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    page.form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    const ParamSchema& schema = entry.schema;
    const bool chooser = schema.find(QStringLiteral("test_file")) && schema.find(QStringLiteral("test_fraction"));
    for (const ParamSpec& p : schema.specs()) {
        const bool testKey =
            p.key == u"test_file" || p.key == u"test_fraction" || p.key == u"test_target_file";
        if (chooser && testKey && !page.testMode) {
            page.testMode = new QComboBox(page.widget);
            page.testMode->setObjectName(QStringLiteral("test_mode"));
            page.testMode->addItem(tr("random fraction of the file"), QStringLiteral("fraction"));
            page.testMode->addItem(tr("separate test file"), QStringLiteral("file"));
            page.testMode->setToolTip(
                tr("Hold out a random share of the rows, or test on a file of its own"));
            page.form->addRow(tr("Test set"), page.testMode);
            QComboBox* mode = page.testMode;
            connect(mode, &QComboBox::currentIndexChanged, this, [this] {
                if (m_settingSpec)
                    return;
                m_overrides.remove(QStringLiteral("test_file"));
                m_overrides.remove(QStringLiteral("test_fraction"));
                m_overrides.remove(QStringLiteral("test_target_file"));
                updateVisibility();
                onUserEdit(QString());
            });
        }
        Field f = Field::make(p, page.widget);
        if (p.type == ParamType::Bool)
            page.form->addRow(f.row);
        else
            page.form->addRow(p.label, f.row);
        const QString key = p.key;
        auto edited = [this, key] { onUserEdit(key); };
        if (auto* s = qobject_cast<QSpinBox*>(f.editor)) {
            connect(s, &QSpinBox::valueChanged, this, edited);
            // Every keystroke: the row names a problem while it is typed (the value commits later).
            connect(static_cast<IntField*>(s)->edit(), &QLineEdit::textEdited, this, [this] { refreshFieldMessages(); });
        } else if (auto* d = qobject_cast<QDoubleSpinBox*>(f.editor)) {
            connect(d, &QDoubleSpinBox::valueChanged, this, edited);
            connect(static_cast<RealField*>(d)->edit(), &QLineEdit::textEdited, this, [this] { refreshFieldMessages(); });
        } else if (auto* c = qobject_cast<QComboBox*>(f.editor))
            connect(c, &QComboBox::currentIndexChanged, this, edited);
        else if (auto* b = qobject_cast<QCheckBox*>(f.editor))
            connect(b, &QCheckBox::toggled, this, edited);
        else if (auto* l = qobject_cast<QLineEdit*>(f.editor))
            connect(l, &QLineEdit::textChanged, this, edited);
        {
            const QSignalBlocker block(f.editor);
            f.reset();
        }
        page.fields.append(std::move(f));
    }
    m_stack->addWidget(page.widget);
    m_pages.append(std::move(page));
}

const DatasetPanel::Page& DatasetPanel::page() const
{
    return m_pages[std::max(0, m_stack->currentIndex())];
}

bool DatasetPanel::isActive(const Page& page, const Field& f) const
{
    const QString& key = f.param->key;
    if (page.testMode) {
        // The chooser decides between a test file and a random fraction.
        const bool fileMode = page.testMode->currentIndex() == 1;
        if (key == u"test_fraction")
            return !fileMode;
        if (key == u"test_file" || key == u"test_target_file")
            return fileMode;
    }
    if (f.param->activeWhen.isEmpty())
        return true;
    // The schema's conditions (e.g. the rf_* keys only with random features), on the values the
    // form holds now.
    QVariantMap values = data::DataKeys::context(page.entry->info).values;
    for (const Field& g : page.fields) {
        const QJsonValue v = g.read();
        if (!v.isUndefined())
            values.insert(g.param->key, v.toVariant());
    }
    return ParamSchema::isActive(*f.param, values);
}

QString DatasetPanel::source() const
{
    return m_source->currentData().toString();
}

QString DatasetPanel::fetchStatus() const
{
    return m_fetchRow->status();
}

QString DatasetPanel::fetchError() const
{
    return m_fetchRow->error();
}

QPushButton* DatasetPanel::fetchButton() const
{
    return m_fetchRow->button();
}

bool DatasetPanel::isFetching() const
{
    return m_fetchRow->isFetching();
}

bool DatasetPanel::isLoading() const
{
    return m_loader->isLoading();
}

void DatasetPanel::updateVisibility()
{
    m_fetchRow->showSet(source());
    // The stack is as tall as its current page, not as its tallest one (the CSV form).
    for (int i = 0; i < m_pages.size(); ++i)
        m_pages[i].widget->setSizePolicy(QSizePolicy::Preferred, i == m_stack->currentIndex()
                                                                     ? QSizePolicy::Preferred
                                                                     : QSizePolicy::Ignored);
    m_stack->adjustSize();
    for (const Page& p : m_pages)
        for (const Field& f : p.fields)
            p.form->setRowVisible(f.row, isActive(p, f));
    const bool csv = source() == u"csv";
    if (!csv)
        m_rows->setVisible(false);
}

void DatasetPanel::resetFields(const Page& p)
{
    for (const Field& f : p.fields) {
        const QSignalBlocker block(f.editor);
        f.reset();
    }
    if (p.testMode) {
        const QSignalBlocker block(p.testMode);
        p.testMode->setCurrentIndex(0);
    }
}

void DatasetPanel::onUserEdit(const QString& key)
{
    if (m_settingSpec)
        return;
    if (!key.isEmpty()) {
        m_overrides.remove(key); // the user's value replaces the one the editor could not show
        m_edited.insert(key);
        updateVisibility(); // rows whose conditions read this key appear or hide
    }
    refreshFieldMessages();
    m_debounce->start();
    Q_EMIT changed();
}

void DatasetPanel::onSourceChanged()
{
    m_stack->setCurrentIndex(m_source->currentIndex());
    if (m_settingSpec)
        return;
    m_overrides = QJsonObject(); // they belonged to the file's source
    m_present.clear();
    m_edited.clear();
    updateVisibility();
    refreshFieldMessages();
    m_debounce->start();
    Q_EMIT changed();
}

QJsonObject DatasetPanel::spec() const
{
    QJsonObject o;
    o.insert(QStringLiteral("source"), source());
    const Page& p = page();
    for (const Field& f : p.fields) {
        if (!isActive(p, f))
            continue;
        const QJsonValue v = f.read();
        if (v.isUndefined())
            continue;
        const ParamSpec& param = *f.param;
        const bool needed =
            param.required ||
            (!param.requiredUnless.isEmpty() && !o.contains(param.requiredUnless) &&
             !(p.testMode && p.testMode->currentIndex() == 1 && param.key == u"test_fraction"));
        if (needed || m_present.contains(param.key) || m_edited.contains(param.key) ||
            !param.defaultValue.isValid() || v != QJsonValue::fromVariant(param.defaultValue))
            o.insert(param.key, v);
    }
    for (auto it = m_overrides.begin(); it != m_overrides.end(); ++it)
        o.insert(it.key(), it.value());
    return o;
}

void DatasetPanel::setSpec(const QJsonObject& spec)
{
    m_settingSpec = true;
    m_overrides = QJsonObject();
    m_edited.clear();
    m_present.clear();
    const QJsonValue src = spec.value(QStringLiteral("source"));
    const int index = src.isString() ? m_source->findData(src.toString()) : -1;
    if (index >= 0)
        m_source->setCurrentIndex(index);
    else
        m_overrides.insert(QStringLiteral("source"), src.isUndefined() ? QJsonValue(QJsonValue::Null) : src);
    m_stack->setCurrentIndex(m_source->currentIndex());
    const Page& p = page();
    resetFields(p);
    if (p.testMode)
        p.testMode->setCurrentIndex(spec.contains(QStringLiteral("test_file")) ? 1 : 0);
    updateVisibility();
    for (auto it = spec.begin(); it != spec.end(); ++it) {
        if (it.key() == u"source")
            continue;
        const Field* field = nullptr;
        for (const Field& f : p.fields)
            if (f.param->key == it.key() && isActive(p, f))
                field = &f;
        if (field && field->write(it.value()))
            m_present.insert(it.key());
        else
            m_overrides.insert(it.key(), it.value());
    }
    m_settingSpec = false;
    refreshFieldMessages();
    m_debounce->start();
    Q_EMIT changed();
}

Task DatasetPanel::task() const
{
    if (const auto t = data::DataSource::task(spec()))
        return *t;
    const Page& p = page();
    if (p.entry->info.task)
        return *p.entry->info.task;
    for (const Field& f : p.fields)
        if (f.param->key == u"task")
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
    const Page& p = page();
    if (key == u"test_mode")
        return p.testMode;
    for (const Field& f : p.fields)
        if (f.param->key == key && isActive(p, f))
            return f.editor;
    return nullptr;
}

void DatasetPanel::refreshPreview()
{
    startLoad();
}

void DatasetPanel::setError(const QString& message)
{
    m_lastError = withLabels(message);
    m_error->setText(m_lastError);
    m_error->setVisible(!m_lastError.isEmpty());
    refreshFieldMessages();
}

const DatasetPanel::Field* DatasetPanel::fileField(const Page& p) const
{
    const Field* first = nullptr;
    for (const Field& f : p.fields) {
        if ((f.param->type != ParamType::Path && f.param->type != ParamType::Folder) || !isActive(p, f))
            continue;
        if (f.param->key == u"file")
            return &f;
        if (!first)
            first = &f;
    }
    return first;
}

void DatasetPanel::refreshFieldMessages()
{
    const Field* file = fileField(page());
    for (const Page& p : m_pages)
        for (const Field& f : p.fields) {
            if (!f.message)
                continue;
            QString text = f.problem ? f.problem() : QString();
            // A load error of a source read from a file: beside the File field, where the eye is
            // (the foot of the panel is below the fold even on a large screen).
            if (text.isEmpty() && &f == file)
                text = m_lastError;
            f.message->setText(text);
            f.message->setVisible(!text.isEmpty());
        }
}

QStringList DatasetPanel::problems() const
{
    QStringList out;
    const Page& p = page();
    for (const Field& f : p.fields)
        if (f.problem && isActive(p, f)) {
            const QString t = f.problem();
            if (!t.isEmpty())
                out << t;
        }
    // The user's file could not be read: Run would fail on it, so say it now with the rest.
    if (!isLoading() && !m_lastError.isEmpty() && fileField(p))
        out << m_lastError;
    return out;
}

QString DatasetPanel::withLabels(const QString& message) const
{
    static const QRegularExpression lead(QStringLiteral("^dataset\\.([A-Za-z_0-9]+): "));
    const QRegularExpressionMatch m = lead.match(message);
    if (!m.hasMatch())
        return message;
    for (const Field& f : page().fields)
        if (f.param->key == m.captured(1) && !f.param->label.isEmpty())
            return QStringLiteral("%1 (dataset.%2): %3").arg(f.param->label, f.param->key, message.mid(m.capturedLength()));
    return message;
}

void DatasetPanel::startLoad()
{
    m_debounce->stop();
    const QJsonObject s = spec();
    const QString problem = data::DataSource::validate(s);
    const bool csv = s.value(QStringLiteral("source")).toString() == u"csv";
    // The rows of a CSV file show even while the options are still wrong: they help fix them.
    const QString file = s.value(QStringLiteral("file")).toString();
    if (!problem.isEmpty() && !(csv && !file.isEmpty())) {
        m_loader->supersede();
        setError(problem);
        m_warnings.clear();
        m_warning->setVisible(false);
        m_status->clear();
        m_rows->setVisible(false);
        m_preview->setMessage(tr("No preview until the dataset settings are fixed."));
        Q_EMIT previewReady();
        return;
    }
    m_status->setText(problem.isEmpty() ? tr("Loading %1 …").arg(data::DataSource::describe(s)) : QString());
    m_loader->start(s, problem, m_baseDir);
}

void DatasetPanel::finishLoad(const PreviewLoader::Result& result)
{
    setError(result.error);
    m_warnings = result.warnings;
    m_warning->setText(result.warnings.join(QLatin1Char('\n')));
    m_warning->setVisible(!result.warnings.isEmpty());
    m_rows->showRows(result.rows);
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
