// `inference: auto` (nn/inference.h): each call goes to one of two evaluators of the same
// network by its size, small calls to the one with less per-call cost, large ones to the one
// with faster arithmetic. No LibTorch: the two come in as mcts::Evaluator.
#pragma once
#include <memory>
#include <string>

#include "mcts/evaluator.h"

namespace poppy::nn {

class SplitEvaluator : public mcts::Evaluator {
 public:
  // Calls of at most maxSmallBatch positions go to `small`, larger ones to `large`.
  SplitEvaluator(std::unique_ptr<mcts::Evaluator> small, std::unique_ptr<mcts::Evaluator> large, int maxSmallBatch)
      : small_(std::move(small)), large_(std::move(large)), maxSmallBatch_(maxSmallBatch) {}
  void evaluate(const float* planes, int batch, float* policyLogits, float* wdl) override {
    (batch <= maxSmallBatch_ ? small_ : large_)->evaluate(planes, batch, policyLogits, wdl);
  }
  bool threadSafe() const override { return small_->threadSafe() && large_->threadSafe(); }
  std::string description() const override {
    return small_->description() + " for calls of up to " + std::to_string(maxSmallBatch_) + " positions, " +
           large_->description() + " above";
  }
  mcts::Evaluator& small() { return *small_; }
  mcts::Evaluator& large() { return *large_; }
  int maxSmallBatch() const { return maxSmallBatch_; }

 private:
  std::unique_ptr<mcts::Evaluator> small_, large_;
  int maxSmallBatch_;
};

}  // namespace poppy::nn
