// clustersim-gui [SCENARIO]: the desktop what-if planner (docs/gui.md).
// clustersim-gui --screenshot FILE.png [--view TAB] [--pin] [--set KEY=VALUE]... SCENARIO: runs the scenario
// (with --pin: runs it as written, pins it as the baseline, then applies the --set edits and runs again), renders
// the window with the chart tab TAB shown, writes FILE.png and exits; with QT_QPA_PLATFORM=offscreen it needs
// no display. --sweep DB [--plot X,Y] [--series AXIS] [--pareto] opens a sweep results database in the Sweep
// tab. --view design designs the fabrics of the scenario's job and shows the Pareto plot. --view search searches
// the scenario's plan (--top K plans replayed) and shows the ranking.
#include <QApplication>
#include <QCommandLineParser>
#include <QTabWidget>

#include <iostream>

#include "gui/charts_panel.hpp"
#include "gui/main_window.hpp"
#include "gui/schedule_view.hpp"
#include "gui/design_view.hpp"
#include "gui/plan_search_view.hpp"
#include "gui/sweep_view.hpp"
#include "sim/api/clustersim.hpp"

namespace {

/// Runs the document in `w`, waiting for the result; false (with the reason on stderr) when it fails.
bool run_and_wait(cs::gui::MainWindow& w) {
  const cs::gui::RunRecordPtr before = w.current_run();
  if (!w.run()) {
    std::cerr << "clustersim-gui: " << w.error_text().toStdString() << "\n";
    return false;
  }
  w.wait_for_run();
  if (w.current_run() == before) {
    std::cerr << "clustersim-gui: the run failed: " << w.error_text().toStdString() << "\n";
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setOrganizationName("clustersim");
  QApplication::setApplicationName("clustersim-gui");
  QApplication::setApplicationVersion(QString::fromStdString(cs::api::version()));

  QCommandLineParser cli;
  cli.setApplicationDescription("clustersim planner: what-if planning of GPU training clusters");
  cli.addHelpOption();
  cli.addVersionOption();
  cli.addOption({"screenshot", "Run SCENARIO, save the window as FILE.png and exit.", "FILE.png"});
  cli.addOption({"view", "With --screenshot: the chart tab to show (breakdown, memory, power, cost, rent, latency, timeline, sweep, search, design, schedule).",
                 "TAB", "breakdown"});
  cli.addOption({"pin", "With --screenshot: run SCENARIO as written first and pin it as the baseline."});
  cli.addOption({"set", "With --screenshot: set KEY (a dotted scenario key) to VALUE before the run.", "KEY=VALUE"});
  cli.addOption({"sweep", "Open the sweep results database DB in the Sweep tab.", "DB"});
  cli.addOption({"plot", "With --sweep: plot Y against X (result fields or axis keys).", "X,Y"});
  cli.addOption({"series", "With --sweep: one series per value of the sweep axis AXIS (none: one series).", "AXIS"});
  cli.addOption({"pareto", "With --sweep: draw the Pareto front of the plot."});
  cli.addOption({"schedule", "With --view schedule: the schedule file to simulate in the Schedule tab.", "FILE"});
  cli.addOption({"top", "With --view search: plans replayed in full from the head of the screened ranking.", "K", "5"});
  cli.addPositionalArgument("SCENARIO", "A scenario YAML file to open.", "[SCENARIO]");
  cli.process(app);
  const QStringList args = cli.positionalArguments();

  cs::gui::MainWindow window;
  if (cli.isSet("screenshot")) {
    // Non-interactive: nothing may ask a question.
    window.set_unsaved_question([](const QString&) { return QMessageBox::Discard; });
    window.show();
    if (args.isEmpty() || !window.open_file(args.front())) {
      std::cerr << "clustersim-gui: --screenshot needs a scenario that opens: " << window.error_text().toStdString() << "\n";
      return 2;
    }
    if (cli.isSet("pin")) {
      if (!run_and_wait(window)) return 2;
      window.pin_baseline();
    }
    for (const QString& edit : cli.values("set")) {
      const auto eq = edit.indexOf('=');
      if (eq <= 0) {
        std::cerr << "clustersim-gui: --set takes KEY=VALUE, got \"" << edit.toStdString() << "\"\n";
        return 2;
      }
      window.set_value(edit.left(eq), edit.mid(eq + 1));
    }
    if (!run_and_wait(window)) return 2;
    if (cli.isSet("sweep")) {
      if (!window.open_sweep(cli.value("sweep"))) {
        std::cerr << "clustersim-gui: " << window.error_text().toStdString() << "\n";
        return 2;
      }
      const QStringList xy = cli.value("plot").split(',');
      if (xy.size() == 2) window.sweep_view()->set_fields(xy[0], xy[1]);
      if (cli.isSet("series")) window.sweep_view()->set_series_by(cli.value("series"));
      window.sweep_view()->set_pareto(cli.isSet("pareto"));
    }
    const QStringList tabs{"breakdown", "memory", "power", "cost", "rent", "latency", "timeline", "sweep", "search",
                           "design", "schedule"};
    const int tab = static_cast<int>(tabs.indexOf(cli.value("view")));
    if (tab < 0) {
      std::cerr << "clustersim-gui: --view must be one of " << tabs.join(", ").toStdString() << "\n";
      return 2;
    }
    if (cli.value("view") == "search") {
      bool top_ok = false;
      const int top = cli.value("top").toInt(&top_ok);
      if (!top_ok || top < 1) {
        std::cerr << "clustersim-gui: --top takes a positive whole number, got \"" << cli.value("top").toStdString()
                  << "\"\n";
        return 2;
      }
      cs::gui::PlanSearchView* search = window.plan_search_view();
      search->set_top_k(top);
      if (!search->start()) {
        std::cerr << "clustersim-gui: " << search->summary_text().toStdString() << "\n";
        return 2;
      }
      search->wait();
      if (search->ranking().plans.empty()) {
        std::cerr << "clustersim-gui: " << search->summary_text().toStdString() << "\n";
        return 2;
      }
    }
    if (cli.value("view") == "design") {
      cs::gui::DesignView* design = window.design_view();
      if (!design->start()) return 2;
      design->wait();
      if (design->report().candidates.empty()) {
        std::cerr << "clustersim-gui: " << design->summary_text().toStdString() << "\n";
        return 2;
      }
    }
    if (cli.value("view") == "schedule") {
      cs::gui::ScheduleView* schedule = window.schedule_view();
      if (!cli.isSet("schedule") || !schedule->open(cli.value("schedule"))) {
        std::cerr << "clustersim-gui: --view schedule needs --schedule FILE\n";
        return 2;
      }
      schedule->wait();
      if (!schedule->run()) {
        std::cerr << "clustersim-gui: " << schedule->summary_text().toStdString() << "\n";
        return 2;
      }
    }
    window.charts()->setCurrentIndex(tab);
    for (int i = 0; i < 5; ++i) QApplication::processEvents();
    if (!window.grab().save(cli.value("screenshot"))) {
      std::cerr << "clustersim-gui: cannot write " << cli.value("screenshot").toStdString() << "\n";
      return 1;
    }
    return 0;
  }
  window.show();
  if (!args.isEmpty()) window.open_file(args.front());
  return QApplication::exec();
}
