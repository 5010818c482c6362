// gmmu — the last cycles of a lock-step co-simulation, kept replayable so a
// mismatch leaves a waveform of how the RTL got there.
//
// A replay_window holds a second instance of an RTL block (the "twin")
// `depth` cycles behind the instance under check, and the inputs of the
// cycles in between. Each recorded cycle pushes the oldest one into the twin.
// On a mismatch, dump() opens the twin's waveform and replays the held
// cycles: the file starts with the RTL's full state `depth` cycles before
// the mismatch and ends with the mismatching cycle, and the run never paid
// for tracing. The twin costs one more RTL step per cycle.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gmmu {

// Device: has open_waveform(path, why) and close_waveform() (the walker's
// pwc_cycle_device and ws_step_device). Event: what the block was given in
// one cycle; Apply(device, event) gives it to the twin.
template <class Device, class Event, void (*Apply)(Device &, const Event &)>
class replay_window {
  public:
    // depth >= 1.
    replay_window(std::unique_ptr<Device> twin, unsigned depth)
        : twin_(std::move(twin)), ring_(depth ? depth : 1)
    {
    }

    // The block under check is given e this cycle.
    void record(const Event &e)
    {
        if (held_ == ring_.size()) {
            Apply(*twin_, ring_[head_]);
            ring_[head_] = e;
            head_ = (head_ + 1) % ring_.size();
        } else {
            ring_[(head_ + held_) % ring_.size()] = e;
            held_++;
        }
        recorded_++;
    }

    // Replay the held cycles into an FST at path; false + *why when the twin
    // cannot write one. Afterwards the twin is level with the block (nothing
    // held), so a second dump() is empty.
    bool dump(const std::string &path, std::string *why)
    {
        if (!twin_->open_waveform(path, why))
            return false;
        for (size_t k = 0; k < held_; k++)
            Apply(*twin_, ring_[(head_ + k) % ring_.size()]);
        twin_->close_waveform();
        held_ = 0;
        return true;
    }

    // Cycles recorded since construction; the held ones are the last held().
    uint64_t recorded() const { return recorded_; }
    size_t held() const { return held_; }
    size_t depth() const { return ring_.size(); }

  private:
    std::unique_ptr<Device> twin_;
    std::vector<Event> ring_;
    size_t head_ = 0, held_ = 0;
    uint64_t recorded_ = 0;
};

} // namespace gmmu
