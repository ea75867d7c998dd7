#include "CsvRowsTable.h"

#include <data/CsvLoader.h>
#include <data/DataError.h>
#include <data/DataSource.h>

#include <QHeaderView>
#include <QJsonArray>

#include <algorithm>

namespace tb::gui {
namespace {

/// The CSV reading options of @p spec (as DataSource reads them), for the preview of the rows.
data::CsvLoader::Options csvOptions(const QJsonObject& spec)
{
    data::CsvLoader::Options o;
    const QString d = spec.value(QStringLiteral("delimiter")).toString(QStringLiteral(","));
    o.delimiter = d == u"whitespace" ? ' ' : (d.isEmpty() ? ',' : d.at(0).toLatin1());
    o.header = spec.value(QStringLiteral("header")).toBool(true);
    o.skipRows = std::max(0, spec.value(QStringLiteral("skip_rows")).toInt(0));
    return o;
}

} // namespace

CsvRowsTable::CsvRowsTable(QWidget* parent) : QTableWidget(parent)
{
    setObjectName(QStringLiteral("file_rows"));
    setToolTip(tr("The first rows of the file as the delimiter, skip rows and header options read them; the "
                  "header row is bold, target columns are marked"));
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    verticalHeader()->setVisible(false);
    horizontalHeader()->setVisible(false);
    setMaximumHeight(170);
    setVisible(false);
}

CsvRowsTable::Rows CsvRowsTable::read(const QJsonObject& spec, const QString& baseDir)
{
    Rows r;
    if (spec.value(QStringLiteral("source")).toString() != u"csv")
        return r;
    const QJsonObject abs = data::DataSource::withAbsolutePaths(spec, baseDir);
    const data::CsvLoader::Options o = csvOptions(spec);
    try {
        r.rows = data::CsvLoader::previewRows(abs.value(QStringLiteral("file")).toString(), o);
        r.read = true;
        r.header = o.header;
        const QJsonValue t = spec.value(QStringLiteral("target"));
        const QJsonArray targets = t.isArray() ? t.toArray() : QJsonArray{t};
        const QStringList names = o.header && !r.rows.isEmpty() ? r.rows.first() : QStringList();
        const int width = r.rows.isEmpty() ? 0 : int(r.rows.first().size());
        for (const QJsonValue& c : targets) {
            int i = -1;
            if (c.isDouble())
                i = int(c.toDouble()) < 0 ? width + int(c.toDouble()) : int(c.toDouble());
            else if (c.isString())
                i = int(names.indexOf(c.toString()));
            if (i >= 0 && i < width)
                r.targetColumns << i;
        }
    } catch (const data::DataError& e) {
        r.error = e.text();
    }
    return r;
}

void CsvRowsTable::showRows(const Rows& rows)
{
    setVisible(rows.read || !rows.error.isEmpty());
    clear();
    if (!rows.read) {
        setRowCount(0);
        setColumnCount(0);
        return;
    }
    int width = 0;
    for (const QStringList& r : rows.rows)
        width = std::max(width, int(r.size()));
    setColumnCount(width);
    setRowCount(int(rows.rows.size()));
    for (int i = 0; i < rows.rows.size(); ++i)
        for (int j = 0; j < rows.rows[i].size(); ++j) {
            auto* item = new QTableWidgetItem(rows.rows[i][j]);
            if (i == 0 && rows.header) {
                QFont bold = item->font();
                bold.setBold(true);
                item->setFont(bold);
            }
            if (rows.targetColumns.contains(j))
                item->setBackground(QColor(0xfd, 0xeb, 0xd0)); // the target: a light orange column
            setItem(i, j, item);
        }
    resizeColumnsToContents();
}

} // namespace tb::gui
