// The only view the search has of a network. mcts/ never includes LibTorch: a network lives
// behind this interface (nn/), and tests plug in the uniform evaluator below or a scripted one.
#pragma once
#include <algorithm>

namespace poppy::mcts {

class Evaluator {
 public:
  virtual ~Evaluator() = default;
  // planes: batch x encoder.inputSize() floats. Writes batch x policySize logits and
  // batch x 3 probabilities (win, draw, loss) from the side to move's view.
  virtual void evaluate(const float* planes, int batch, float* policyLogits, float* wdl) = 0;
  // Whether evaluate() may run on several threads at once (play::Analyzer's search threads);
  // when not, those threads take turns.
  virtual bool threadSafe() const { return false; }
};

// No knowledge at all: equal logits and a certain draw. The search then plays on exact game
// ends only, which is what tests of the tree mechanics and overhead benchmarks want.
class UniformEvaluator : public Evaluator {
 public:
  explicit UniformEvaluator(int policySize) : policySize_(policySize) {}
  void evaluate(const float* /*planes*/, int batch, float* policyLogits, float* wdl) override {
    std::fill(policyLogits, policyLogits + size_t(batch) * policySize_, 0.0f);
    for (int i = 0; i < batch; ++i) {
      wdl[3 * i] = 0.0f;
      wdl[3 * i + 1] = 1.0f;
      wdl[3 * i + 2] = 0.0f;
    }
  }
  bool threadSafe() const override { return true; }

 private:
  int policySize_;
};

}  // namespace poppy::mcts
