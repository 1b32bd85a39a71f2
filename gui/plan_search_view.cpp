#include "gui/plan_search_view.hpp"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>

#include <chrono>

#include "gui/human_units.hpp"
#include "gui/scenario_document.hpp"

namespace cs::gui {
namespace {

enum Column { kRank, kPlan, kStep, kScreened, kMfu, kMemory, kWhy, kColumns };
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

QTableWidgetItem* number_item(const QString& text) {
  auto* item = new QTableWidgetItem(text);
  item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return item;
}

}  // namespace

PlanSearchView::PlanSearchView(ScenarioDocument& doc, QWidget* parent) : QWidget(parent), doc_(doc) {
  setObjectName("plan_search");
  auto* layout = new QVBoxLayout(this);
  auto* bar = new QHBoxLayout;
  search_ = new QPushButton("Search");
  search_->setObjectName("plan_search.search");
  search_->setToolTip("Screen every valid plan of the model on this cluster, replay the best K in full");
  top_k_ = new QSpinBox;
  top_k_->setRange(1, 100);
  top_k_->setValue(5);
  top_k_->setToolTip("Plans replayed in full (event-driven step) from the head of the screened ranking");
  progress_ = new QProgressBar;
  progress_->setFormat("%v / %m plans replayed");
  progress_->hide();
  cancel_button_ = new QPushButton("Cancel");
  cancel_button_->hide();
  bar->addWidget(search_);
  bar->addWidget(new QLabel("Replay the best"));
  bar->addWidget(top_k_);
  bar->addWidget(progress_, 1);
  bar->addWidget(cancel_button_);
  bar->addStretch();
  summary_ = new QLabel("Search the parallel plan of the scenario in the editor: its own parallelism is ignored.");
  summary_->setObjectName("plan_search.summary");
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  table_ = new QTableWidget(0, kColumns);
  table_->setHorizontalHeaderLabels(
      {"Rank", "Plan", "Step time (s)", "Screened (s)", "MFU (%)", "Memory (GiB)", "Why it lost to the one above"});
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  use_ = new QPushButton("Use this plan");
  use_->setObjectName("plan_search.use");
  use_->setToolTip("Write the selected plan's parallelism and training settings into the scenario");
  auto* bottom = new QHBoxLayout;
  bottom->addStretch();
  bottom->addWidget(use_);
  layout->addLayout(bar);
  layout->addWidget(summary_);
  layout->addWidget(table_, 1);
  layout->addLayout(bottom);

  progress_timer_ = new QTimer(this);
  progress_timer_->setInterval(100);
  connect(progress_timer_, &QTimer::timeout, this, [this] {
    const auto total = static_cast<int>(total_.load());
    if (total == 0) {
      progress_->setRange(0, 0);  // screening: its length is not known in advance
      return;
    }
    progress_->setRange(0, total);
    progress_->setValue(static_cast<int>(done_.load()));
  });
  connect(&watcher_, &QFutureWatcher<Outcome>::finished, this, &PlanSearchView::on_done);
  connect(search_, &QPushButton::clicked, this, [this] { start(); });
  connect(cancel_button_, &QPushButton::clicked, this, &PlanSearchView::cancel);
  connect(use_, &QPushButton::clicked, this, [this] {
    const auto rows = table_->selectionModel()->selectedRows();
    if (!rows.isEmpty()) use_plan(rows.front().row());
  });
  connect(table_, &QTableWidget::cellDoubleClicked, this, [this](int row, int) { use_plan(row); });
  connect(table_, &QTableWidget::itemSelectionChanged, this, &PlanSearchView::update_controls);
  update_controls();
}

PlanSearchView::~PlanSearchView() {
  cancel();
  watcher_.waitForFinished();
}

void PlanSearchView::set_top_k(int k) { top_k_->setValue(k); }

QString PlanSearchView::summary_text() const { return summary_->text(); }

bool PlanSearchView::busy() const { return watcher_.isRunning(); }

void PlanSearchView::cancel() { cancel_ = true; }

void PlanSearchView::wait() {
  watcher_.waitForFinished();
  QCoreApplication::processEvents();  // delivers the watcher's finished signal
}

bool PlanSearchView::start() {
  if (busy()) return false;
  Scenario sc;
  try {
    sc = load_searchable_scenario(doc_.text(), doc_.display_name()).scenario;
  } catch (const std::exception& e) {
    summary_->setText("Cannot search: " + QString::fromStdString(e.what()));
    return false;
  }
  cancel_ = false;
  done_ = 0;
  total_ = 0;
  api::SearchOptions opt;
  opt.top_k = top_k_->value();
  opt.cancel = &cancel_;
  opt.progress = [this](std::size_t done, std::size_t total) {
    total_ = total;
    done_ = done;
  };
  summary_->setText(QStringLiteral("Searching the plans of %1 on %2 GPUs...")
                        .arg(QString::fromStdString(sc.model.name))
                        .arg(sc.gpus));
  // The worker loads its own scenarios from the editor's text (a loaded Scenario owns its topology and is not
  // copied across threads).
  auto work = [text = doc_.text(), name = doc_.display_name(), opt = std::move(opt)]() -> Outcome {
    Outcome out;
    const auto t0 = std::chrono::steady_clock::now();
    try {
      out.ranking = api::search_plans(text, name, opt);
    } catch (const api::Cancelled&) {
      out.cancelled = true;
    } catch (const std::exception& e) {
      out.error = QString::fromStdString(e.what());
    }
    out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
  };
  watcher_.setFuture(QtConcurrent::run(std::move(work)));
  update_controls();
  return true;
}

void PlanSearchView::on_done() {
  const Outcome out = watcher_.result();
  if (out.cancelled) {
    summary_->setText("Search cancelled.");
  } else if (!out.error.isEmpty()) {
    summary_->setText("Search failed: " + out.error);
  } else {
    ranking_ = out.ranking;
    wall_s_ = out.wall_s;
    show_ranking();
  }
  update_controls();
  Q_EMIT search_ended();
}

void PlanSearchView::show_ranking() {
  const api::PlanRanking& r = ranking_;
  table_->setRowCount(0);
  if (r.plans.empty()) {
    summary_->setText(QStringLiteral("No plan: %1 (%2 layouts, %3 plans that divide evenly).")
                          .arg(QString::fromStdString(r.no_plan_reason), format_count(static_cast<double>(r.layouts)),
                               format_count(static_cast<double>(r.enumerated))));
    return;
  }
  summary_->setText(QStringLiteral("Screened %1 plans in %2 s (%3 divide evenly, %4 out of memory); replayed %5 in "
                                   "%6 s; screen vs replay: Spearman rho %7, Kendall tau %8.")
                        .arg(format_count(static_cast<double>(r.screened)))
                        .arg(r.screen_s, 0, 'f', 2)
                        .arg(format_count(static_cast<double>(r.enumerated)))
                        .arg(format_count(static_cast<double>(r.out_of_memory)))
                        .arg(r.replayed)
                        .arg(r.replay_s, 0, 'f', 2)
                        .arg(r.spearman, 0, 'f', 3)
                        .arg(r.kendall, 0, 'f', 3));
  table_->setRowCount(static_cast<int>(r.plans.size()));
  for (int i = 0; i < table_->rowCount(); ++i) {
    const api::RankedPlan& p = r.plans[static_cast<std::size_t>(i)];
    table_->setItem(i, kRank, number_item(QString::number(i + 1)));
    table_->setItem(i, kPlan, new QTableWidgetItem(QString::fromStdString(p.description)));
    table_->setItem(i, kStep, number_item(QString::number(p.step_s, 'f', 3)));
    table_->setItem(i, kScreened, number_item(QString::number(p.screened_step_s, 'f', 3)));
    table_->setItem(i, kMfu, number_item(QString::number(100 * p.mfu, 'f', 1)));
    table_->setItem(i, kMemory, number_item(QString::number(p.memory.value() / kGiB, 'f', 1) +
                                            (p.fits_in_memory ? "" : " (does not fit)")));
    table_->setItem(i, kWhy, new QTableWidgetItem(QString::fromStdString(p.why_lost)));
  }
  table_->resizeColumnsToContents();
  table_->selectRow(0);
}

bool PlanSearchView::use_plan(int row) {
  if (row < 0 || row >= static_cast<int>(ranking_.plans.size())) return false;
  const api::RankedPlan& p = ranking_.plans[static_cast<std::size_t>(row)];
  // The search's plans leave every other parallelism key at its default: the section is replaced as a whole.
  doc_.set_value("parallelism", "");
  for (const auto& [key, value] : api::plan_settings(p.plan)) doc_.set_value(key, value);
  Q_EMIT plan_applied(QString::fromStdString(p.description));
  return true;
}

void PlanSearchView::update_controls() {
  const bool running = busy();
  search_->setEnabled(!running);
  top_k_->setEnabled(!running);
  progress_->setVisible(running);
  cancel_button_->setVisible(running);
  if (running) {
    progress_->setRange(0, 0);
    progress_timer_->start();
  } else {
    progress_timer_->stop();
  }
  use_->setEnabled(!running && !table_->selectionModel()->selectedRows().isEmpty());
}

}  // namespace cs::gui
