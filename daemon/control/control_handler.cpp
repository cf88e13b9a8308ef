#include "daemon/control/control_handler.h"

#include <functional>
#include <limits>
#include <string>

#include "cachelib/common/logger.h"

namespace tiercache {
namespace {

// "adaptive,clock,seq=4194304:4194304" (cutoffs in bytes, reads:writes) or "...,seq=off".
std::string BriefPolicies(const PolicyOptions& p) {
  const SequentialOptions& seq = p.sequential;
  return p.admission + "," + p.replacement + ",seq=" +
         (seq.enabled ? std::to_string(seq.read_cutoff_bytes) + ":" +
                            std::to_string(seq.write_cutoff_bytes)
                      : "off");
}

// "target,0.2,0.5,30000,0.1,1000": the policy, then the knobs in CleaningSettingsToJson's order
// (max_dirty_age_ms and idle_after_ms in milliseconds).
std::string BriefCleaning(const ControlJson& settings) {
  std::string brief;
  for (const auto& item : settings.items()) {
    const ControlJson& v = item.value();
    brief += (brief.empty() ? "" : ",") + (v.is_string() ? v.get<std::string>() : v.dump());
  }
  return brief;
}

// The end of a live change from `from` to `to` (briefs): logged as `event` and answered with
// `reply`, or logged as `event`_failed and answered with the error.
std::function<void(Status)> ReportChange(std::string event, std::string from, std::string to,
                                         ControlJson reply, ControlHandler::Emit emit) {
  return [=](Status status) {
    const LogField f{"from", from}, t{"to", to};
    if (!status.ok()) {
      LogError(event + "_failed", {f, t, {"error", status.ToString()}});
      return emit(ErrorResponse(status), true);
    }
    LogInfo(event, {f, t});
    emit(reply, true);
  };
}

}  // namespace

struct ControlHandler::FlushState {
  Emit emit;
  uint64_t last_sent = std::numeric_limits<uint64_t>::max();
  Nanos last_time{0};
  bool sent_any = false;
  bool finished = false;
};

ControlHandler::ControlHandler(EventLoop& loop, ControlTarget& target, Nanos progress_interval)
    : loop_(loop), target_(target), progress_interval_(progress_interval) {}

void ControlHandler::execute(const ControlRequest& request, Emit emit) {
  switch (request.command) {
    case ControlCommand::kStatus: return status(emit);
    case ControlCommand::kStats: return stats(emit);
    case ControlCommand::kMode: return mode(request, std::move(emit));
    case ControlCommand::kFlush: return flush(std::move(emit));
    case ControlCommand::kStop: return stop(std::move(emit));
    case ControlCommand::kDetach: return detach(std::move(emit));
    case ControlCommand::kResetHealth: return reset_health(std::move(emit));
    case ControlCommand::kPolicy: return policy(request, std::move(emit));
    case ControlCommand::kCleaning: return cleaning(request, std::move(emit));
  }
}

ControlTarget::DoneCallback ControlHandler::on_loop(std::function<void(Status)> fn) {
  EventLoop* loop = &loop_;
  std::weak_ptr<char> alive = alive_;
  return [loop, alive, fn = std::move(fn)](Status status) {
    loop->post([alive, fn, status = std::move(status)] {
      if (!alive.expired()) fn(status);
    });
  };
}

void ControlHandler::status(const Emit& emit) {
  ControlJson response = OkResponse();
  response["status"] = StatusToJson(target_.status(), target_.mode(), target_.counters(),
                                    target_.policy_report());
  emit(response, true);
}

void ControlHandler::stats(const Emit& emit) {
  ControlJson response = OkResponse();
  response["stats"] = StatsToJson(target_);
  emit(response, true);
}

void ControlHandler::mode(const ControlRequest& request, Emit emit) {
  CacheMode previous = target_.mode();
  if (!request.mode) {
    ControlJson response = OkResponse();
    response["mode"] = std::string(ModeName(previous));
    return emit(response, true);
  }
  CacheMode wanted = *request.mode;
  const bool drain = request.drain;
  target_.set_mode(wanted, drain, on_loop([emit, wanted, previous, drain](Status status) {
    const LogField from{"from", std::string(ModeName(previous))};
    const LogField to{"to", std::string(ModeName(wanted))};
    if (!status.ok()) {
      LogError("mode_switch_failed", {from, to, {"error", status.ToString()}});
      return emit(ErrorResponse(status), true);
    }
    LogInfo("mode_switch", {from, to, {"drain", drain ? "true" : "false"}});
    ControlJson response = OkResponse();
    response["mode"] = std::string(ModeName(wanted));
    response["previous_mode"] = std::string(ModeName(previous));
    emit(response, true);
  }));
}

void ControlHandler::flush_progress(const std::shared_ptr<FlushState>& state, uint64_t remaining) {
  if (state->finished || remaining == state->last_sent) return;
  Nanos now = loop_.clock().now();
  if (state->sent_any && now - state->last_time < progress_interval_) return;
  state->sent_any = true;
  state->last_sent = remaining;
  state->last_time = now;
  state->emit(ProgressResponse(remaining), false);
}

ControlTarget::ProgressCallback ControlHandler::progress_for(
    const std::shared_ptr<FlushState>& state) {
  EventLoop* loop = &loop_;
  std::weak_ptr<char> alive = alive_;
  return [this, loop, alive, state](uint64_t remaining) {
    loop->post([this, alive, state, remaining] {
      if (!alive.expired()) flush_progress(state, remaining);
    });
  };
}

void ControlHandler::flush(Emit emit) {
  auto state = std::make_shared<FlushState>();
  state->emit = std::move(emit);
  target_.clean_all(progress_for(state), on_loop([this, state](Status status) {
    state->finished = true;
    if (!status.ok()) return state->emit(ErrorResponse(status), true);
    ControlJson response = OkResponse();
    response["dirty_lines"] = target_.counters().lines_dirty;
    state->emit(response, true);
  }));
}

void ControlHandler::detach(Emit emit) {
  auto state = std::make_shared<FlushState>();
  state->emit = std::move(emit);
  EventLoop* loop = &loop_;
  std::weak_ptr<char> alive = alive_;
  target_.detach(progress_for(state), [loop, alive, state](Result<uint64_t> written) {
    loop->post([alive, state, written = std::move(written)] {
      if (alive.expired()) return;
      state->finished = true;
      if (!written.ok()) return state->emit(ErrorResponse(written.status()), true);
      ControlJson response = OkResponse();
      response["written_back_bytes"] = written.value();
      state->emit(response, true);
    });
  });
}

void ControlHandler::reset_health(Emit emit) {
  target_.reset_health(on_loop([this, emit](Status status) {
    if (!status.ok()) return emit(ErrorResponse(status), true);
    ControlJson response = OkResponse();
    response["health"] = target_.status().health.state;
    emit(response, true);
  }));
}

void ControlHandler::policy(const ControlRequest& request, Emit emit) {
  const PolicyOptions previous = target_.policies();
  if (!request.changes_policies()) {
    ControlJson response = OkResponse();
    response["policies"] = PolicyOptionsToJson(previous);
    return emit(response, true);
  }
  const PolicyOptions next = request.policies.apply(previous);
  ControlJson reply = OkResponse();
  reply["policies"] = PolicyOptionsToJson(next);
  reply["previous_policies"] = PolicyOptionsToJson(previous);
  target_.set_policies(next, on_loop(ReportChange("policy_change", BriefPolicies(previous),
                                                  BriefPolicies(next), reply, std::move(emit))));
}

void ControlHandler::cleaning(const ControlRequest& request, Emit emit) {
  const PolicyReport report = target_.policy_report();
  const ControlJson previous = CleaningSettingsToJson(report.cleaning, report.cleaning_options);
  if (!request.cleaning.any()) {
    ControlJson response = OkResponse();
    response["cleaning"] = previous;
    return emit(response, true);
  }
  const std::string policy = request.cleaning.policy.value_or(report.cleaning);
  const CleaningOptions options = request.cleaning.apply(report.cleaning_options);
  const ControlJson next = CleaningSettingsToJson(policy, options);
  ControlJson reply = OkResponse();
  reply["cleaning"] = next;
  reply["previous_cleaning"] = previous;
  target_.set_cleaning(policy, options,
                       on_loop(ReportChange("cleaning_change", BriefCleaning(previous),
                                            BriefCleaning(next), reply, std::move(emit))));
}

void ControlHandler::stop(Emit emit) {
  target_.stop(on_loop([emit](Status status) {
    emit(status.ok() ? OkResponse() : ErrorResponse(status), true);
  }));
}

}  // namespace tiercache
