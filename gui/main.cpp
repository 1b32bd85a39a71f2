// clustersim-gui [SCENARIO]: the desktop what-if planner (docs/gui.md).
// clustersim-gui --screenshot FILE.png [--view TAB] [--baseline OTHER.yaml] [SCENARIO]: runs the scenario (after
// OTHER, pinned as the baseline), renders the window with the chart tab TAB shown, writes FILE.png and exits;
// with QT_QPA_PLATFORM=offscreen it needs no display.
#include <QApplication>
#include <QCommandLineParser>
#include <QTabWidget>

#include <iostream>

#include "gui/charts_panel.hpp"
#include "gui/main_window.hpp"
#include "sim/api/clustersim.hpp"

namespace {

/// Opens and runs `path` in `w`, waiting for the result; false (with the reason on stderr) when it fails.
bool open_and_run(cs::gui::MainWindow& w, const QString& path) {
  if (!w.open_file(path) || !w.run()) {
    std::cerr << "clustersim-gui: " << w.error_text().toStdString() << "\n";
    return false;
  }
  w.wait_for_run();
  if (!w.current_run()) {
    std::cerr << "clustersim-gui: " << path.toStdString() << ": the run failed: " << w.error_text().toStdString() << "\n";
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
  cli.addOption({"view", "With --screenshot: the chart tab to show (breakdown, memory, power, cost, rent, timeline).",
                 "TAB", "breakdown"});
  cli.addOption({"baseline", "With --screenshot: run OTHER first and pin it as the baseline.", "OTHER.yaml"});
  cli.addPositionalArgument("SCENARIO", "A scenario YAML file to open.", "[SCENARIO]");
  cli.process(app);
  const QStringList args = cli.positionalArguments();

  cs::gui::MainWindow window;
  if (cli.isSet("screenshot")) {
    // Non-interactive: nothing may ask a question.
    window.set_unsaved_question([](const QString&) { return QMessageBox::Discard; });
    window.show();
    if (cli.isSet("baseline")) {
      if (!open_and_run(window, cli.value("baseline"))) return 2;
      window.pin_baseline();
    }
    if (!args.isEmpty() && !open_and_run(window, args.front())) return 2;
    const QStringList tabs{"breakdown", "memory", "power", "cost", "rent", "timeline"};
    const int tab = static_cast<int>(tabs.indexOf(cli.value("view")));
    if (tab < 0) {
      std::cerr << "clustersim-gui: --view must be one of " << tabs.join(", ").toStdString() << "\n";
      return 2;
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
