// The planner's Design tab driven as a user drives it: open a scenario, press Design fabrics, wait while the window
// stays responsive, and read the candidates, the front and the best one's bill. Expected values come from
// cs::api::design called directly on the same file.
#include <QChartView>
#include <QPushButton>
#include <QScatterSeries>
#include <QSettings>
#include <QStandardPaths>
#include <QTableWidget>
#include <QtTest/QtTest>

#include "gui/design_view.hpp"
#include "gui/main_window.hpp"
#include "sim/api/clustersim.hpp"

using namespace cs;
using namespace cs::gui;

namespace {
// GPT-3 1.3B data-parallel on one DGX H100 node, designed for 32 GPUs (4 nodes): each replay takes milliseconds.
const QString kDesignScenario = QStringLiteral(CS_SOURCE_DIR "/scenarios/gpt3-1.3b-8xh100-dp.yaml");
}  // namespace

class DesignViewTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("clustersim-test");
    QCoreApplication::setApplicationName("clustersim-gui-design-test");
    QSettings().clear();
  }

  void designs_like_the_api_and_shows_the_front_and_the_bill() {
    MainWindow w;
    w.set_unsaved_question([](const QString&) { return QMessageBox::Discard; });
    QVERIFY(w.open_file(kDesignScenario));
    DesignView* view = w.design_view();
    QVERIFY(view != nullptr);
    view->set_gpus(32);
    QTest::mouseClick(view->findChild<QPushButton*>("design.run"), Qt::LeftButton);
    QVERIFY(view->busy());
    QTRY_VERIFY_WITH_TIMEOUT(!view->busy() && view->candidates_table()->rowCount() > 0, 300000);

    api::DesignRequest req;
    req.gpus = 32;
    const DesignReport expected = api::design({.path = kDesignScenario.toStdString()}, req);
    const DesignReport& got = view->report();
    QCOMPARE(got.candidates.size(), expected.candidates.size());
    QCOMPARE(view->candidates_table()->rowCount(), static_cast<int>(expected.candidates.size()));
    int front = 0;
    for (std::size_t i = 0; i < expected.candidates.size(); ++i) {
      QCOMPARE(got.candidates[i].label, expected.candidates[i].label);
      QCOMPARE(got.candidates[i].step_time_s, expected.candidates[i].step_time_s);
      QCOMPARE(got.candidates[i].pareto, expected.candidates[i].pareto);
      front += expected.candidates[i].pareto;
    }
    QCOMPARE(got.best, expected.best);
    QVERIFY(got.best >= 0);
    QCOMPARE(view->bom_table()->rowCount(),
             static_cast<int>(expected.candidates[static_cast<std::size_t>(expected.best)].network_bom.size()));
    // The plot rings exactly the front.
    auto* chart_view = view->findChild<QChartView*>();
    QVERIFY(chart_view != nullptr);
    int ringed = -1;
    for (QAbstractSeries* s : chart_view->chart()->series()) {
      if (s->name() == "Pareto front") ringed = static_cast<int>(static_cast<QScatterSeries*>(s)->count());
    }
    QCOMPARE(ringed, front);
  }
};

QTEST_MAIN(DesignViewTest)
#include "design_view_test.moc"
