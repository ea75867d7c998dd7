#include "PluginsDialog.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QSplitter>
#include <QTableWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <algorithm>

namespace tb::gui {
namespace {

QString stateText(const PluginSpec& p)
{
    switch (p.state) {
    case PluginSpec::State::Loaded: return PluginsDialog::tr("Loaded");
    case PluginSpec::State::Invalid: return PluginsDialog::tr("Invalid");
    case PluginSpec::State::Failed: return PluginsDialog::tr("Failed");
    case PluginSpec::State::Shadowed: return PluginsDialog::tr("Shadowed");
    case PluginSpec::State::Refused: return PluginsDialog::tr("Refused");
    }
    return p.stateName();
}

QString tasksText(const AlgorithmInfo& a)
{
    if (a.regression && a.classification)
        return PluginsDialog::tr("regression, classification");
    if (a.regression)
        return PluginsDialog::tr("regression only");
    if (a.classification)
        return PluginsDialog::tr("classification only");
    return PluginsDialog::tr("no task");
}

} // namespace

PluginsDialog::PluginsDialog(const PluginRegistry& registry, QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("Plugins"));
    resize(820, 520);
    auto* layout = new QVBoxLayout(this);

    // Broken plugins first: they are why someone opens this dialog. Stable within a state.
    m_plugins = registry.plugins();
    std::stable_sort(m_plugins.begin(), m_plugins.end(),
                     [](const auto& a, const auto& b) { return a->isLoaded() < b->isLoaded(); });
    int broken = 0;
    for (const auto& p : m_plugins)
        broken += p->isLoaded() ? 0 : 1;
    auto* summary = new QLabel((m_plugins.size() == 1 ? tr("1 plugin file found")
                                                      : tr("%1 plugin files found").arg(m_plugins.size())) +
                                   (broken ? tr("; %1 not loaded").arg(broken) : QString()),
                               this);
    layout->addWidget(summary);
    // What the user must know first: folders refused as unsafe or trusted anyway, and plugins
    // that replace another of their id (PluginRegistry::notices()).
    if (const QStringList notices = registry.notices(); !notices.isEmpty()) {
        QString html = QStringLiteral("<ul style='margin:0'>");
        for (const QString& n : notices)
            html += QStringLiteral("<li>%1</li>").arg(n.toHtmlEscaped());
        m_notices = new QLabel(QStringLiteral("<b>%1</b>%2").arg(tr("Look at this first:").toHtmlEscaped(), html + QStringLiteral("</ul>")), this);
        m_notices->setObjectName(QStringLiteral("pluginNotices"));
        m_notices->setWordWrap(true);
        m_notices->setTextInteractionFlags(Qt::TextSelectableByMouse);
        m_notices->setStyleSheet(QStringLiteral("QLabel { color: #c0392b; }"));
        layout->addWidget(m_notices);
    }

    auto* splitter = new QSplitter(Qt::Vertical, this);
    m_table = new QTableWidget(int(m_plugins.size()), 5, splitter);
    m_table->setHorizontalHeaderLabels({tr("Plugin"), tr("State"), tr("Version"), tr("Algorithms"), tr("File")});
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setStretchLastSection(true);
    for (int r = 0; r < m_plugins.size(); ++r) {
        const PluginSpec& p = *m_plugins[r];
        const QString name = p.name.isEmpty() ? QFileInfo(p.filePath).fileName() : p.name;
        const QStringList cells{name, stateText(p), p.version,
                                p.isLoaded() ? QString::number(p.algorithms.size()) : QStringLiteral("–"),
                                p.filePath};
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            item->setToolTip(p.isLoaded() ? p.filePath : p.error);
            if (!p.isLoaded())
                item->setForeground(p.state == PluginSpec::State::Shadowed ? QColor(0x80, 0x80, 0x80)
                                                                           : QColor(0xc0, 0x39, 0x2b));
            m_table->setItem(r, c, item);
        }
    }
    m_table->resizeColumnsToContents();
    m_details = new QTextBrowser(splitter);
    m_details->setOpenLinks(false);
    splitter->addWidget(m_table);
    splitter->addWidget(m_details);
    layout->addWidget(splitter, 1);

    layout->addWidget(new QLabel(tr("Plugins are code: they run with your rights. They are loaded from these folders, "
                                    "in this order (TRAINBENCH_PLUGIN_PATH first); a folder that other users can "
                                    "write to is refused unless TRAINBENCH_TRUST_PLUGIN_DIRS names it:"),
                                 this));
    auto* paths = new QListWidget(this);
    paths->setObjectName(QStringLiteral("pluginFolders"));
    for (const PluginFolder& f : registry.folders()) {
        QString text = QDir::toNativeSeparators(f.path);
        QColor colour;
        switch (f.state) {
        case PluginFolder::State::Used: break;
        case PluginFolder::State::Missing:
            text += tr("  (does not exist)");
            colour = QColor(0x80, 0x80, 0x80);
            break;
        case PluginFolder::State::Refused:
            text += tr("  (refused: %1)").arg(f.problem);
            colour = QColor(0xc0, 0x39, 0x2b);
            break;
        case PluginFolder::State::Trusted:
            text += tr("  (trusted by TRAINBENCH_TRUST_PLUGIN_DIRS although %1)").arg(f.problem);
            colour = QColor(0xb3, 0x6b, 0x00);
            break;
        }
        auto* item = new QListWidgetItem(text, paths);
        item->setToolTip(text);
        if (colour.isValid())
            item->setForeground(colour);
    }
    paths->setMaximumHeight(paths->sizeHintForRow(0) * std::clamp(int(paths->count()), 2, 6) + 6);
    layout->addWidget(paths);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);

    connect(m_table, &QTableWidget::currentCellChanged, this, [this](int row) { showDetails(row); });
    if (!m_plugins.isEmpty())
        m_table->selectRow(0);
    else
        m_details->setPlainText(tr("No plugin files were found on the search path below."));
}

void PluginsDialog::showDetails(int row)
{
    if (row < 0 || row >= m_plugins.size()) {
        m_details->clear();
        return;
    }
    const PluginSpec& p = *m_plugins[row];
    auto esc = [](const QString& s) { return s.toHtmlEscaped(); };
    QString html = QStringLiteral("<h3>%1</h3><table>").arg(esc(p.name.isEmpty() ? QFileInfo(p.filePath).fileName() : p.name));
    auto field = [&](const QString& k, const QString& v) {
        if (!v.isEmpty())
            html += QStringLiteral("<tr><td><b>%1</b>&nbsp;</td><td>%2</td></tr>").arg(esc(k), esc(v));
    };
    field(tr("State"), stateText(p));
    field(tr("Id"), p.id);
    field(tr("Version"), p.version);
    field(tr("API version"), p.apiVersion ? QString::number(p.apiVersion) : QString());
    field(tr("Family"), p.family);
    field(tr("Description"), p.description);
    field(tr("Citation"), p.citation);
    field(tr("File"), QDir::toNativeSeparators(p.filePath));
    field(tr("Replaces"), p.replaces.join(QStringLiteral(", ")));
    html += QStringLiteral("</table>");
    if (const QString n = PluginRegistry::replacementNotice(p); !n.isEmpty())
        html += QStringLiteral("<p style='color:#c0392b'>%1</p>").arg(esc(n));
    if (!p.isLoaded())
        html += QStringLiteral("<p style='color:#c0392b'><b>%1</b> %2</p>").arg(esc(tr("Why not loaded:")), esc(p.error));
    else if (!p.error.isEmpty())
        html += QStringLiteral("<p style='color:#c0392b'><b>%1</b> %2</p>").arg(esc(tr("Refused:")), esc(p.error));
    if (!p.dataSources.isEmpty())
        html += QStringLiteral("<p><b>%1</b> %2</p>").arg(esc(tr("Data sources:")), esc(p.dataSources.join(QStringLiteral(", "))));
    if (!p.algorithms.isEmpty()) {
        html += QStringLiteral("<p><b>%1</b></p><ul>").arg(esc(tr("Algorithms")));
        for (const auto& a : p.algorithms)
            html += QStringLiteral("<li><b>%1</b> (<code>%2</code>, %3, %4 parameters)<br>%5</li>")
                        .arg(esc(a.name), esc(a.id), esc(tasksText(a)))
                        .arg(a.schema.size())
                        .arg(esc(a.description));
        html += QStringLiteral("</ul>");
    }
    m_details->setHtml(html);
}

} // namespace tb::gui
