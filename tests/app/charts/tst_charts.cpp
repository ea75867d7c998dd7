#include <charts/ChartHover.h>
#include <charts/ChartPalette.h>
#include <charts/ChartPlot.h>
#include <charts/ChartRegistry.h>
#include <charts/ChartRenderer.h>
#include <charts/ChartView.h>
#include <charts/LearningCurveChart.h>
#include <charts/SummaryChart.h>

#include <QAreaSeries>
#include <QGraphicsLayout>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QTemporaryDir>
#include <QValueAxis>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QtTest>

#include <cmath>

using namespace tb;
using namespace tb::charts;

namespace {

/// A deterministic synthetic learning curve of @p n checkpoints; @p shift varies the repeats.
QVector<MetricPoint> curve(int n, double shift, double t0 = 0.0)
{
    QVector<MetricPoint> c;
    for (int i = 0; i < n; ++i) {
        MetricPoint p;
        p.seq = i;
        p.epoch = i;
        p.trainTime = t0 + 0.5 * i;
        p.loss = 2 * std::exp(-0.4 * i) + shift;
        p.trainAccuracy = 0.95 - 0.5 * std::exp(-0.5 * i) + shift;
        p.testAccuracy = 0.90 - 0.5 * std::exp(-0.5 * i) + shift;
        c.append(p);
    }
    return c;
}

QList<CurveSeriesData> twoByThree(int n)
{
    return {
        {"Adam", "gradient.adam", {curve(n, 0.00), curve(n, 0.02), curve(n, -0.02)}},
        {"BPLS", "bpls.bpls", {curve(n, 0.03), curve(n, 0.04), curve(n, 0.05)}},
    };
}

QSet<QAbstractSeries*> seriesSet(QChart* c)
{
    const auto list = c->series();
    return QSet<QAbstractSeries*>(list.begin(), list.end());
}

int countBands(QChart* c)
{
    int n = 0;
    for (QAbstractSeries* s : c->series())
        n += s->type() == QAbstractSeries::SeriesTypeArea;
    return n;
}

} // namespace

class TestCharts : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Issue 49, item 3: twenty runs on a chart repeated colours every 8. Sixteen colours now, no
    // two alike: every pair differs by at least 60 in the sum of |ΔR| + |ΔG| + |ΔB| (the closest
    // pair, reddish purple and rose, is 67 apart; a repeated or near-identical colour is < 30),
    // none near white (a thin line on the chart's background), and only indices 16 apart repeat.
    // Issue 49, item 3: BPLS at a millisecond beside Adam at seconds was a squiggle on a linear
    // time axis. Unasked, the time charts take log10 when the curves' positive times span more
    // than two decades (BPLS 1 ms to 2 ms, Adam 50 ms to 3 s: 3,000×) and stay linear when they
    // do not (Adam alone: 60×); asking for linear or log overrides the choice.
    void timeAxisIsChosenByTheSpanOfTheCurves()
    {
        auto curve = [](const QString& label, std::initializer_list<double> times) {
            AlgorithmCurves c;
            c.label = label;
            QVector<MetricPoint> points;
            int seq = 0;
            for (double t : times) {
                MetricPoint p;
                p.seq = seq++;
                p.epoch = seq;
                p.trainTime = t;
                p.testAccuracy = 0.5 + 0.01 * seq;
                points << p;
            }
            c.repeats << points;
            return c;
        };
        ExperimentResult both, adam;
        both.curves << curve("BPLS", {0.001, 0.002}) << curve("Adam", {0.05, 0.5, 3.0});
        adam.curves << curve("Adam", {0.05, 0.5, 3.0});
        QVERIFY(ChartOptions::spansDecades(both, 2));
        QVERIFY(!ChartOptions::spansDecades(adam, 2));
        const ChartEntry* entry = ChartRegistry::find("learning-curve-time");
        QVERIFY(entry);
        auto kindOf = [&](const ExperimentResult& r, const ChartOptions& o) {
            auto plot = entry->build(o);
            plot->show(r, o);
            auto* chart = qobject_cast<LearningCurveChart*>(plot->chart());
            return chart ? chart->xAxisKind() : LearningCurveChart::XAxis::Epoch;
        };
        ChartOptions automatic, linear, log;
        linear.logTime = false;
        log.logTime = true;
        QCOMPARE(kindOf(both, automatic), LearningCurveChart::XAxis::TrainTimeLog);
        QCOMPARE(kindOf(adam, automatic), LearningCurveChart::XAxis::TrainTime);
        QCOMPARE(kindOf(both, linear), LearningCurveChart::XAxis::TrainTime);
        QCOMPARE(kindOf(adam, log), LearningCurveChart::XAxis::TrainTimeLog);
        // The epoch chart is never on a time axis.
        auto epochPlot = ChartRegistry::find("learning-curve-epoch")->build(automatic);
        epochPlot->show(both, automatic);
        QCOMPARE(qobject_cast<LearningCurveChart*>(epochPlot->chart())->xAxisKind(), LearningCurveChart::XAxis::Epoch);
    }

    void paletteHasSixteenDistinctColours()
    {
        QCOMPARE(ChartPalette::size(), 16);
        for (int i = 0; i < 16; ++i) {
            const QColor a = ChartPalette::color(i);
            QVERIFY2(a.red() + a.green() + a.blue() < 3 * 235, qPrintable(a.name()));
            QCOMPARE(ChartPalette::color(i + 16), a);
            for (int j = i + 1; j < 16; ++j) {
                const QColor b = ChartPalette::color(j);
                const int d = std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) + std::abs(a.blue() - b.blue());
                QVERIFY2(d >= 60, qPrintable(QStringLiteral("%1 and %2: %3").arg(a.name(), b.name()).arg(d)));
            }
        }
    }

    void twoAlgorithmsThreeRepeatsHaveLinesAndBands()
    {
        LearningCurveChart chart;
        chart.setData(twoByThree(6));
        QCOMPARE(chart.groupCount(), 2);
        // Per algorithm test + train lines and a band for each; the legend's two keys (test, train).
        QCOMPARE(chart.series().size(), 10);
        QCOMPARE(countBands(&chart), 4);

        const QStringList names = {"Adam — test", "Adam — train", "BPLS — test", "BPLS — train"};
        for (int g = 0; g < 2; ++g)
            for (int l = 0; l < 2; ++l) {
                QLineSeries* s = chart.lineSeries(g, l);
                QVERIFY(s);
                QCOMPARE(s->name(), names[g * 2 + l]);
                QCOMPARE(s->pen().style(), l == 0 ? Qt::SolidLine : Qt::DashLine);
                QCOMPARE(s->pen().color(), ChartPalette::color(g)); // train and test share the colour
                QCOMPARE(s->count(), 6);
                QAreaSeries* b = chart.bandSeries(g, l);
                QVERIFY(b);
                QCOMPARE(b->upperSeries()->count(), 6);
                QCOMPARE(b->brush().color().rgb(), ChartPalette::color(g).rgb());
                QVERIFY(b->brush().color().alphaF() < 0.3); // translucent so the lines stay visible
            }
        // Mean of the three repeats at checkpoint 0: shifts 0, 0.02, -0.02 cancel.
        QVERIFY(std::abs(chart.lineSeries(0, 0)->at(0).y() - 100 * (0.90 - 0.5)) < 1e-9);

        // The legend lists every algorithm once, then the line kinds, and no band (it hides markers
        // that do not fit: give it room).
        chart.resize(1000, 700);
        chart.layout()->activate();
        QStringList shown;
        for (QLegendMarker* m : chart.legend()->markers())
            if (m->isVisible())
                shown << m->label();
        QCOMPARE(shown, (QStringList{"test", "train", "Adam", "BPLS"}));
    }
    // Long configuration labels (the reproduction reports' "LIBLINEAR -s 0, tolerance ladder")
    // put the legend on the right; it is then as wide as its longest label needs, so "— test"
    // and "— train" stay readable (Qt's own width cut them off at 720 × 450).
    void rightLegendIsWideEnoughForItsLabels()
    {
        LearningCurveChart chart;
        QList<CurveSeriesData> data = twoByThree(4);
        data[0].label = "LIBLINEAR -s 0, tolerance ladder";
        data[1].label = "lsq.gls identity (least squares)";
        chart.setData(data);
        chart.resize(600, 450);
        chart.layout()->activate();
        QCOMPARE(chart.legend()->alignment(), Qt::AlignRight);
        // What the legend draws: its text items (Qt elides a label that does not fit with "…").
        QStringList drawn;
        QList<QGraphicsItem*> items = chart.legend()->childItems();
        while (!items.isEmpty()) {
            QGraphicsItem* item = items.takeFirst();
            items << item->childItems();
            if (auto* text = dynamic_cast<QGraphicsTextItem*>(item); text && item->isVisible())
                drawn << text->toPlainText();
            else if (auto* simple = dynamic_cast<QGraphicsSimpleTextItem*>(item); simple && item->isVisible())
                drawn << simple->text();
        }
        QVERIFY2(drawn.contains("LIBLINEAR -s 0, tolerance ladder") && drawn.contains("lsq.gls identity (least squares)"),
                 qPrintable(drawn.join(" | ")));
    }
    void singleRepeatHasNoBand()
    {
        LearningCurveChart chart;
        chart.setData({{"Adam", "gradient.adam", {curve(5, 0)}},
                       {"SGD", "gradient.sgd", {curve(5, 0), curve(5, 0.01)}}});
        QVERIFY(!chart.bandSeries(0, 0));
        QVERIFY(!chart.bandSeries(0, 1));
        QVERIFY(chart.bandSeries(1, 0));
        QCOMPARE(countBands(&chart), 2);
        QCOMPARE(chart.series().size(), 8); // 4 lines, 2 bands, 2 legend keys
    }
    // Issue 49, item 3: twenty runs on a chart took ~40 % of it in legend entries cut mid-number,
    // and the colours came round every 8. One entry per configuration and one key per line kind;
    // a click on an entry hides the configuration, on a key the kind; past the palette, points.
    void manyConfigurationsShareOneLegendEntryEach()
    {
        LearningCurveChart chart;
        QList<CurveSeriesData> data;
        for (int i = 0; i < 20; ++i)
            data.append({QStringLiteral("Adam lr=%1").arg(i == 19 ? 0.00316227766017 : 0.001 * (i + 1), 0, 'g', 12),
                         "gradient.adam", {curve(5, 0)}});
        chart.setData(data);
        chart.resize(1400, 900);
        chart.layout()->activate();
        QStringList shown;
        for (QLegendMarker* m : chart.legend()->markers())
            if (m->isVisible())
                shown << m->label();
        QCOMPARE(shown.size(), 22);
        QCOMPARE(shown.mid(0, 2), (QStringList{"test", "train"})); // the keys first, never dropped
        QCOMPARE(shown[2], QStringLiteral("Adam lr=0.001"));
        QCOMPARE(shown.last(), QStringLiteral("Adam lr=0.003162")); // 12 digits in the name, 4 shown
        QCOMPARE(chart.lineSeries(19, 0)->name(), QStringLiteral("Adam lr=0.00316227766017 — test"));
        // Colours: sixteen distinct, then again with points.
        QCOMPARE(chart.lineSeries(16, 0)->pen().color(), chart.lineSeries(0, 0)->pen().color());
        QVERIFY(!chart.lineSeries(15, 0)->pointsVisible());
        QVERIFY(chart.lineSeries(16, 0)->pointsVisible() && chart.lineSeries(19, 1)->pointsVisible());
        // A click on the third configuration's entry hides both its lines, another shows them.
        QLegendMarker* third = nullptr;
        for (QLegendMarker* m : chart.legend()->markers())
            if (m->isVisible() && m->label() == QStringLiteral("Adam lr=0.003"))
                third = m;
        QVERIFY(third);
        Q_EMIT third->clicked();
        QVERIFY(!chart.lineSeries(2, 0)->isVisible() && !chart.lineSeries(2, 1)->isVisible());
        QVERIFY(chart.lineSeries(1, 0)->isVisible());
        QVERIFY(third->font().strikeOut());
        Q_EMIT third->clicked();
        QVERIFY(chart.lineSeries(2, 0)->isVisible() && chart.lineSeries(2, 1)->isVisible());
        // The "train" key hides every train line.
        QLegendMarker* train = nullptr;
        for (QLegendMarker* m : chart.legend()->markers())
            if (m->isVisible() && m->label() == QStringLiteral("train"))
                train = m;
        QVERIFY(train);
        Q_EMIT train->clicked();
        QVERIFY(!chart.isSuffixVisible("train"));
        QVERIFY(!chart.lineSeries(7, 1)->isVisible() && chart.lineSeries(7, 0)->isVisible());
    }
    void setDataUpdatesSeriesInPlace()
    {
        LearningCurveChart chart;
        chart.setData(twoByThree(4));
        const QSet<QAbstractSeries*> before = seriesSet(&chart);
        const double xMaxBefore = static_cast<QValueAxis*>(chart.xAxis())->max();
        chart.setData(twoByThree(10));
        QCOMPARE(seriesSet(&chart), before); // same objects: no rebuild, no flicker
        QCOMPARE(chart.lineSeries(1, 1)->count(), 10);
        QCOMPARE(chart.bandSeries(1, 1)->lowerSeries()->count(), 10);
        // The x axis follows the data: the last checkpoint (4.5 s) is inside the range.
        QVERIFY(static_cast<QValueAxis*>(chart.xAxis())->max() > xMaxBefore);
        QVERIFY(static_cast<QValueAxis*>(chart.xAxis())->max() >= 4.5);

        // Fewer algorithms: the extra series go away, the first algorithm's stay.
        QLineSeries* first = chart.lineSeries(0, 0);
        chart.setData(twoByThree(10).mid(0, 1));
        QCOMPARE(chart.series().size(), 6); // 2 lines, 2 bands, 2 keys
        QCOMPARE(chart.lineSeries(0, 0), first);
    }
    void axisTitlesNameUnits()
    {
        LearningCurveChart chart(LearningCurveChart::Metric::Accuracy, LearningCurveChart::XAxis::TrainTime);
        QCOMPARE(chart.xAxis()->titleText(), QString("training time (s)"));
        QCOMPARE(chart.yAxis()->titleText(), QString("accuracy (%)"));
        QVERIFY(!chart.title().isEmpty());
        chart.setMetric(LearningCurveChart::Metric::Rmse);
        chart.setXAxisKind(LearningCurveChart::XAxis::Epoch);
        QCOMPARE(chart.xAxis()->titleText(), QString("epoch"));
        QCOMPARE(chart.yAxis()->titleText(), QString("RMSE"));
        chart.setMetric(LearningCurveChart::Metric::Loss);
        QCOMPARE(chart.yAxis()->titleText(), QString("loss"));
    }
    // Runs with a cpu budget are timed on the CPU clock: the time axis and title say so; with
    // both clocks on one chart the axis says "wall, or CPU where marked" and the CPU curves are
    // marked in the legend. The epoch axis has no clock.
    void timeAxisNamesTheClockOfTheRuns()
    {
        LearningCurveChart chart;
        QList<CurveSeriesData> data = twoByThree(4);
        for (CurveSeriesData& d : data)
            d.clock = ClockKind::Cpu;
        chart.setData(data);
        QCOMPARE(chart.xAxis()->titleText(), QString("training CPU time (s)"));
        QCOMPARE(chart.title(), QString("Accuracy vs training CPU time"));
        QCOMPARE(chart.lineSeries(0, 0)->name(), QString("Adam — test"));
        data[0].clock = ClockKind::Wall;
        chart.setData(data);
        QCOMPARE(chart.xAxis()->titleText(), QString("training time (s; wall, or CPU where marked)"));
        QCOMPARE(chart.lineSeries(0, 0)->name(), QString("Adam — test"));
        QCOMPARE(chart.lineSeries(1, 0)->name(), QString("BPLS (CPU time) — test"));
        chart.setXAxisKind(LearningCurveChart::XAxis::Epoch);
        QCOMPARE(chart.xAxis()->titleText(), QString("epoch"));
        QCOMPARE(chart.lineSeries(1, 0)->name(), QString("BPLS — test"));
        chart.setXAxisKind(LearningCurveChart::XAxis::TrainTime);
        data[1].clock = ClockKind::Wall;
        chart.setData(data);
        QCOMPARE(chart.xAxis()->titleText(), QString("training time (s)"));
        QCOMPARE(chart.title(), QString("Accuracy vs training time"));
        // A curve without checkpoints yet does not decide the clock.
        data.append(CurveSeriesData{"Idle", "x.idle", {}, ClockKind::Cpu});
        chart.setData(data);
        QCOMPARE(chart.xAxis()->titleText(), QString("training time (s)"));
    }
    void lossHasOneLinePerAlgorithm()
    {
        LearningCurveChart chart(LearningCurveChart::Metric::Loss);
        chart.setData(twoByThree(5));
        QCOMPARE(chart.lineCount(0), 1);
        QCOMPARE(chart.lineSeries(0, 0)->name(), QString("Adam — loss"));
        // Switching metric keeps the data and rebuilds the lines.
        chart.setMetric(LearningCurveChart::Metric::Accuracy);
        QCOMPARE(chart.lineCount(0), 2);
        QCOMPARE(chart.lineSeries(1, 1)->count(), 5);
    }
    void accuracyAxisStaysWithinPercentRange()
    {
        LearningCurveChart chart;
        chart.setData(twoByThree(8)); // up to 95 % + shift 0.05 = 100 %, bands reach above it
        QVERIFY(chart.yAxis()->max() <= 100.0);
        QVERIFY(chart.yAxis()->min() >= 0.0);
        QVERIFY(chart.yAxis()->min() <= 40.0); // lowest mean: 100 · (0.90 − 0.5 − 0.02) = 38 %
    }
    void missingMetricGivesEmptyLineNotCrash()
    {
        LearningCurveChart chart(LearningCurveChart::Metric::Rmse); // classifier curves: RMSE all NaN
        chart.setData(twoByThree(5));
        QCOMPARE(chart.lineSeries(0, 0)->count(), 0);
        QVERIFY(!ChartRenderer::render(&chart, QSize(400, 300)).isNull());
        chart.setData({});
        QCOMPARE(chart.series().size(), 0);
    }
    void logTimeAxisSkipsZeroTime()
    {
        LearningCurveChart chart(LearningCurveChart::Metric::Accuracy,
                                 LearningCurveChart::XAxis::TrainTimeLog);
        chart.setData(twoByThree(6)); // first checkpoint at t = 0
        auto* axis = qobject_cast<QLogValueAxis*>(chart.xAxis());
        QVERIFY(axis);
        QCOMPARE(chart.lineSeries(0, 0)->count(), 5);
        QCOMPARE(chart.bandSeries(0, 0)->upperSeries()->count(), 5);
        QVERIFY(axis->min() > 0);
        QVERIFY(axis->min() <= 0.5 && axis->max() >= 2.5);
        const QImage img = ChartRenderer::render(&chart, QSize(600, 400));
        QCOMPARE(img.size(), QSize(600, 400));
        // Only t = 0 points: nothing drawable, still no crash and a valid range.
        chart.setData({{"A", "a", {curve(1, 0)}}});
        QCOMPARE(chart.lineSeries(0, 0)->count(), 0);
        QVERIFY(axis->min() > 0 && axis->max() > axis->min());
        ChartRenderer::render(&chart, QSize(300, 200));
        // And back to linear keeps the series.
        QLineSeries* s = chart.lineSeries(0, 0);
        chart.setXAxisKind(LearningCurveChart::XAxis::TrainTime);
        QCOMPARE(chart.lineSeries(0, 0), s);
        QCOMPARE(s->count(), 1);
        QVERIFY(qobject_cast<QValueAxis*>(chart.xAxis()));
        QVERIFY(s->attachedAxes().contains(chart.xAxis()));
    }
    void savePngWritesImageOfRequestedSize()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        LearningCurveChart chart;
        chart.setData(twoByThree(8));
        const QString path = dir.filePath("curve.png");
        QString error;
        QVERIFY2(ChartRenderer::savePng(&chart, path, QSize(900, 600), &error), qPrintable(error));
        QVERIFY(QFileInfo(path).size() > 0);
        QImage img(path);
        QCOMPARE(img.size(), QSize(900, 600));
        // The first algorithm's colour must be on the image: the lines were drawn, not only the frame.
        const QRgb blue = ChartPalette::color(0).rgb();
        int blueish = 0, nonWhite = 0;
        for (int y = 0; y < img.height(); ++y)
            for (int x = 0; x < img.width(); ++x) {
                const QRgb p = img.pixel(x, y);
                nonWhite += (p & 0xFFFFFF) != 0xFFFFFF;
                blueish += std::abs(qRed(p) - qRed(blue)) + std::abs(qGreen(p) - qGreen(blue)) +
                               std::abs(qBlue(p) - qBlue(blue)) <
                           30;
            }
        QVERIFY2(nonWhite > 2000, qPrintable(QString::number(nonWhite)));
        QVERIFY2(blueish > 200, qPrintable(QString::number(blueish))); // 2-px lines over hundreds of px
        // Default size.
        QVERIFY(ChartRenderer::savePng(&chart, path));
        QCOMPARE(QImage(path).size(), QSize(1200, 800));
    }
    void savePngToUnwritablePathNamesIt()
    {
        LearningCurveChart chart;
        chart.setData(twoByThree(3));
        const QString path = "/nonexistent-trainbench-dir/sub/curve.png";
        QString error;
        QVERIFY(!ChartRenderer::savePng(&chart, path, QSize(300, 200), &error));
        QVERIFY2(error.contains(path), qPrintable(error));
        QVERIFY(!ChartRenderer::savePng(nullptr, "/tmp/x.png", QSize(300, 200), &error));
        QVERIFY(!ChartRenderer::savePng(&chart, "/tmp/x.png", QSize(0, 200), &error));
        QVERIFY(error.contains("/tmp/x.png"));
    }
    void noiseSweepGroupsSortsAndMarks()
    {
        QList<SummaryPoint> pts;
        for (double sigma : {0.3, 0.0, 0.1, 0.2}) { // unsorted on purpose
            SummaryPoint a{"bpls.bpls", "BPLS", sigma, 10, 0.1 + sigma / 2, 0.01, 0.2 + sigma, 0.02};
            SummaryPoint b{"linear.ridge", "Ridge", sigma, 1, 0.15 + sigma / 2, 0, 0.25 + sigma, 0};
            pts << a << b;
        }
        SummaryChart chart;
        QCOMPARE(chart.xAxis()->titleText(), QString("x"));  // until a kind names the axis
        chart.setAxis(QStringLiteral("noise σ"));
        chart.setData(pts);
        QCOMPARE(chart.groupCount(), 2);
        QCOMPARE(chart.xAxis()->titleText(), QString("noise σ"));
        QCOMPARE(chart.title(), QString("RMSE vs noise σ"));
        QCOMPARE(chart.yAxis()->titleText(), QString("RMSE"));
        QCOMPARE(chart.lineSeries(0, 0)->name(), QString("BPLS — test"));
        QCOMPARE(chart.lineSeries(1, 1)->name(), QString("Ridge — train"));
        QCOMPARE(chart.lineSeries(1, 1)->pen().style(), Qt::DashLine);
        QVERIFY(chart.lineSeries(0, 0)->pointsVisible());
        QVERIFY(chart.bandSeries(0, 0));  // 10 Monte-Carlo runs
        QVERIFY(!chart.bandSeries(1, 0)); // a single run has no spread
        const QList<QPointF> test = chart.lineSeries(0, 0)->points();
        QCOMPARE(test.size(), 4);
        for (int i = 1; i < test.size(); ++i)
            QVERIFY(test[i - 1].x() < test[i].x());
        QCOMPARE(test[0].y(), 0.2);
        QCOMPARE(chart.bandSeries(0, 0)->upperSeries()->at(0).y(), 0.2 + 0.02);

        const QSet<QAbstractSeries*> before = seriesSet(&chart);
        SummaryPoint extra{"bpls.bpls", "BPLS", 0.4, 10, 0.3, 0.01, 0.6, 0.02};
        pts << extra;
        chart.setData(pts);
        QCOMPARE(seriesSet(&chart), before);
        QCOMPARE(chart.lineSeries(0, 0)->count(), 5);
        QVERIFY(chart.xAxis()->property("max").toDouble() >= 0.4);
    }
    void hoverNamesSeriesAndExactPoint()
    {
        auto* chart = new LearningCurveChart;
        chart->setData(twoByThree(6));
        ChartView view(chart);
        view.resize(800, 600);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QLineSeries* s = chart->lineSeries(1, 0);
        const QPointF p = s->at(3);
        const QPoint at = view.mapFromScene(chart->mapToScene(chart->mapToPosition(p, s)));
        const QString text = view.hover()->textAt(at);
        QVERIFY2(text.contains("BPLS — test"), qPrintable(text));
        QVERIFY2(text.contains("training time (s) = 1.5"), qPrintable(text));
        QVERIFY2(text.contains(QString("accuracy (%) = %1").arg(p.y(), 0, 'g', 6)), qPrintable(text));
        QVERIFY(view.hover()->textAt(QPoint(2, 2)).isEmpty()); // the corner is far from any point
    }
    void zoomHoldsAxesUntilReset()
    {
        auto* chart = new LearningCurveChart;
        chart->setData(twoByThree(4));
        ChartView view(chart);
        view.resize(800, 600);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const QRectF plot = chart->plotArea();
        chart->zoomIn(QRectF(plot.topLeft(), plot.size() / 2));
        QVERIFY(chart->isZoomed());
        auto* x = static_cast<QValueAxis*>(chart->xAxis());
        const double zoomedMax = x->max();
        chart->setData(twoByThree(20)); // live data keeps arriving: the user's zoom stays
        QCOMPARE(x->max(), zoomedMax);
        view.resetZoom();
        QVERIFY(!chart->isZoomed());
        QVERIFY(x->max() >= 9.5); // now fitted to the grown data (last checkpoint at 9.5 s)
    }

    void singleCheckpointRunsAreMarked()
    {
        // Closed-form methods (ridge least squares) log one checkpoint: a line of one point
        // draws nothing unless it is marked.
        LearningCurveChart chart;
        chart.setData({CurveSeriesData{"ridge", "linear.ridge", {curve(1, 0)}}, CurveSeriesData{"adam", "a", {curve(5, 0)}}});
        QVERIFY(chart.lineSeries(0, 0)->pointsVisible());
        QVERIFY(chart.lineSeries(0, 0)->markerSize() >= 6);
        QVERIFY(!chart.lineSeries(1, 0)->pointsVisible());
        chart.setData({CurveSeriesData{"ridge", "linear.ridge", {curve(3, 0)}}, CurveSeriesData{"adam", "a", {curve(5, 0)}}});
        QVERIFY(!chart.lineSeries(0, 0)->pointsVisible()); // a real line again
    }

    // Issue 29, item 10: during a live run stray marks stayed at the plot's top and bottom edges
    // (never after reloading the run). The first checkpoint of a run is a line of one point, so
    // it is marked; Qt Charts paints a line's point marks outside the area its item reports, so
    // when the second checkpoint moved everything, the marks of the first were never erased —
    // and one point per line puts test and train at the padded range's two ends. What is on
    // the screen (the offscreen platform grabs the window's backing store, partial repaints
    // and all) must be what a full repaint draws.
    void liveUpdatesLeaveNoStaleMarks()
    {
        auto* chart = new LearningCurveChart;
        ChartView view(chart);
        view.resize(800, 600);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const QVector<MetricPoint> run = curve(8, 0.0, 1.0);
        for (int n = 1; n <= run.size(); ++n) {
            chart->setData({CurveSeriesData{"BPLS", "bpls.classify", {run.mid(0, n)}}});
            QApplication::processEvents(); // paints what changed, as the live updates do
        }
        QApplication::processEvents();
        const QImage shown =
            view.screen()->grabWindow(view.winId()).toImage().convertToFormat(QImage::Format_RGB32);
        const QImage full = view.grab().toImage().convertToFormat(QImage::Format_RGB32);
        QCOMPARE(shown.size(), full.size());
        auto apart = [](QColor a, QColor b) {
            return std::max({std::abs(a.red() - b.red()), std::abs(a.green() - b.green()),
                             std::abs(a.blue() - b.blue())}) > 48;
        };
        QList<QPoint> stale;
        for (int y = 0; y < full.height(); ++y)
            for (int x = 0; x < full.width(); ++x)
                if (apart(shown.pixelColor(x, y), full.pixelColor(x, y)))
                    stale << QPoint(x, y);
        QVERIFY2(stale.isEmpty(), qPrintable(QString("%1 pixels on screen differ from a full repaint, the first at (%2, %3)")
                                                 .arg(stale.size())
                                                 .arg(stale.value(0).x())
                                                 .arg(stale.value(0).y())));
    }

    void tickCountStaysSmallWhateverTheRangeChange()
    {
        // Microsecond training times, then nothing, then hours: Qt lays out every tick after each
        // range or interval change, so the interval must never be far finer than the range
        // (a 1e-7 s interval on a [0, 1] axis froze the GUI building ten million ticks).
        auto ticks = [](QAbstractAxis* a) {
            auto* v = qobject_cast<QValueAxis*>(a);
            return v ? (v->max() - v->min()) / v->tickInterval() : 0.0;
        };
        auto* chart = new LearningCurveChart;
        ChartView view(chart);
        view.resize(800, 600);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVector<MetricPoint> tiny = curve(4, 0), huge = curve(4, 0);
        for (int i = 0; i < 4; ++i) {
            tiny[i].trainTime = 1e-7 * (i + 1);
            huge[i].trainTime = 3600.0 * (i + 1);
        }
        for (const auto& pts : {tiny, QVector<MetricPoint>{}, huge, tiny}) {
            chart->setData({CurveSeriesData{"a", "x", {pts}}});
            QVERIFY2(ticks(chart->xAxis()) <= 20, qPrintable(QString::number(ticks(chart->xAxis()))));
            QVERIFY(ticks(chart->yAxis()) <= 20);
        }
        // Zooming out by wheel and right-click coarsens the ticks first.
        QWheelEvent wheel(QPointF(400, 300), view.mapToGlobal(QPointF(400, 300)), QPoint(), QPoint(0, -120 * 8),
                          Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(view.viewport(), &wheel);
        QVERIFY(chart->isZoomed());
        QVERIFY2(ticks(chart->xAxis()) <= 20, qPrintable(QString::number(ticks(chart->xAxis()))));
    }

    // Issue 18: click a legend entry to hide/show its line and band; a train/test toggle.
    void legendClickAndTrainTestToggleHideLinesAndBands()
    {
        LearningCurveChart chart;
        chart.setData(twoByThree(6));
        QLineSeries* adamTest = chart.lineSeries(0, 0);
        QVERIFY(adamTest->isVisible() && chart.bandSeries(0, 0)->isVisible());
        const QList<QLegendMarker*> markers = chart.legend()->markers(adamTest);
        QCOMPARE(markers.size(), 1);
        Q_EMIT markers.first()->clicked();
        QVERIFY(!adamTest->isVisible());
        QVERIFY(!chart.bandSeries(0, 0)->isVisible());
        QVERIFY(chart.isLineHidden(adamTest->name()));
        chart.setData(twoByThree(7)); // a live update keeps the choice
        QVERIFY(!chart.lineSeries(0, 0)->isVisible());
        Q_EMIT chart.legend()->markers(chart.lineSeries(0, 0)).first()->clicked();
        QVERIFY(chart.lineSeries(0, 0)->isVisible());

        chart.setSuffixVisible("train", false);
        for (int g = 0; g < 2; ++g) {
            QVERIFY(chart.lineSeries(g, 0)->isVisible());  // test
            QVERIFY(!chart.lineSeries(g, 1)->isVisible()); // train
            QVERIFY(!chart.bandSeries(g, 1)->isVisible());
        }
        chart.setSuffixVisible("train", true);
        QVERIFY(chart.lineSeries(1, 1)->isVisible());
    }

    // Issue 18: with seven algorithms the bands were a grey mass: Auto shows only the hovered one.
    void manyAlgorithmsShowOnlyTheHoveredBand()
    {
        LearningCurveChart chart;
        QList<CurveSeriesData> seven;
        for (int a = 0; a < 7; ++a)
            seven.append({QStringLiteral("A%1").arg(a), "x", {curve(5, 0.01 * a), curve(5, 0.01 * a + 0.02)}});
        chart.setData(seven);
        QCOMPARE(chart.bandMode(), BandedLineChart::BandMode::Auto);
        for (int g = 0; g < 7; ++g)
            QVERIFY(!chart.bandSeries(g, 0)->isVisible());
        Q_EMIT chart.legend()->markers(chart.lineSeries(3, 0)).first()->hovered(true);
        QVERIFY(chart.bandSeries(3, 0)->isVisible());
        QVERIFY(!chart.bandSeries(2, 0)->isVisible());
        Q_EMIT chart.legend()->markers(chart.lineSeries(3, 0)).first()->hovered(false);
        QVERIFY(!chart.bandSeries(3, 0)->isVisible());
        chart.setBandMode(BandedLineChart::BandMode::All);
        QVERIFY(chart.bandSeries(6, 1)->isVisible());
        // Two algorithms: Auto shows every band.
        LearningCurveChart two;
        two.setData(twoByThree(5));
        QVERIFY(two.bandSeries(1, 0)->isVisible());
    }

    // Issue 18: BPLS's RMSE is 1e-14 at σ = 0; a linear axis shows it as 0.
    void logYAxisShowsDecades()
    {
        SummaryChart chart;
        QList<SummaryPoint> pts;
        for (int i = 0; i < 5; ++i) {
            SummaryPoint p;
            p.algorithmId = "bpls";
            p.algorithmName = "BPLS";
            p.x = 0.25 * i;
            p.count = 3;
            p.testRmseMean = i == 0 ? 1e-14 : 0.25 * i;
            p.trainRmseMean = i == 0 ? 2e-15 : 0.2 * i;
            p.testRmseStd = p.trainRmseStd = 0.5 * p.testRmseMean; // the band's low edge stays > 0
            pts << p;
        }
        chart.setData(pts);
        chart.setYLog(true);
        QVERIFY(chart.isYLog());
        auto* axis = qobject_cast<QLogValueAxis*>(chart.logYAxis());
        QVERIFY(axis && axis->isVisible());
        QVERIFY(!chart.yAxis()->isVisible());
        QVERIFY2(axis->min() <= 2e-15 && axis->max() >= 1.0, qPrintable(QStringLiteral("%1 … %2").arg(axis->min()).arg(axis->max())));
        QCOMPARE(chart.lineSeries(0, 0)->count(), 5); // every positive point kept
        chart.setData(pts);                          // updates keep the log axis
        QCOMPARE(chart.lineSeries(0, 0)->attachedAxes().contains(axis), true);
        chart.setYLog(false);
        QVERIFY(chart.yAxis()->isVisible());
    }

    // Issue 18: exports say what they show: the title and settings above the chart, PNG or SVG.
    void exportsCarryTitleAndSettingsAsPngAndSvg()
    {
        QTemporaryDir dir;
        LearningCurveChart chart;
        chart.setData(twoByThree(5));
        QString error;
        const QStringList settings{"Data: moons, 400 samples", "Learning curve: 3 repeats, seed 1"};
        const QString png = dir.filePath("c.png"), svg = dir.filePath("c.svg");
        QVERIFY2(ChartRenderer::saveWithHeader(&chart, png, "Moons comparison", settings, QSize(600, 400), &error),
                 qPrintable(error));
        QImage image(png);
        QCOMPARE(image.width(), 600);
        QVERIFY(image.height() > 400); // the header is added above the chart
        QVERIFY2(ChartRenderer::saveWithHeader(&chart, svg, "Moons comparison", settings, QSize(600, 400), &error),
                 qPrintable(error));
        QFile f(svg);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(f.readAll());
        QVERIFY(text.startsWith("<?xml") && text.contains("<svg"));
        QVERIFY(text.contains("Moons comparison"));
        QVERIFY(text.contains("Learning curve: 3 repeats, seed 1"));
        QVERIFY(!ChartRenderer::saveWithHeader(&chart, dir.filePath("no/such/dir/c.svg"), "t", {}, QSize(600, 400), &error));
        QVERIFY2(error.contains("no/such/dir/c.svg"), qPrintable(error));
    }
};

QTEST_MAIN(TestCharts)
#include "tst_charts.moc"
