// The declarations of the scenario keys the workload layer owns: `model:`, `parallelism:` and `training:`
// (STYLE.md rule 10). The parsers, docs/scenario.md's key tables, the JSON Schema and the planner's forms all
// come from these tables.
#pragma once

#include "sim/input/param_table.hpp"
#include "sim/workload/model_spec.hpp"
#include "sim/workload/parallel_plan.hpp"

namespace cs {

[[nodiscard]] const EnumTable<PipelineSchedule>& schedule_names();
[[nodiscard]] const EnumTable<Recompute>& recompute_names();
[[nodiscard]] const EnumTable<AttentionKernel>& attention_names();
[[nodiscard]] const EnumTable<GroupedLaunch>& grouped_launch_names();
[[nodiscard]] const EnumTable<MoeDispatcher>& moe_dispatcher_names();
[[nodiscard]] const EnumTable<HostWork>& host_work_names();
[[nodiscard]] const EnumTable<GradCompression>& compression_names();
[[nodiscard]] const EnumTable<NormKind>& norm_names();
[[nodiscard]] const EnumTable<DType>& precision_names();
/// The optimizer states' data types (TrainingConfig::optimizer_moments, master_weights): fp32, bf16.
[[nodiscard]] const EnumTable<DType>& optimizer_dtype_names();
[[nodiscard]] const EnumTable<Fp8Recipe>& fp8_recipe_names();

/// `model:`: a preset and/or dimensions (checked after reading: see parse_model_spec).
[[nodiscard]] const ParamTable<ModelSpec>& model_params();
/// The dimension keys alone: the format of a preset file in models/ (with format_version).
[[nodiscard]] const ParamTable<ModelSpec>& model_file_params();
[[nodiscard]] const ParamTable<ParallelPlan>& parallel_plan_params();
/// `training:`; the sequence length defaults to the model's (set it in the struct before reading).
[[nodiscard]] const ParamTable<TrainingConfig>& training_params();

}  // namespace cs
