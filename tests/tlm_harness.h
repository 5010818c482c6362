// Test harness for the TLM components: an initiator whose socket tests call
// directly (after elaboration), recording DMI invalidations.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "gmmu/components/extensions.h"

struct TestInitiator : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<TestInitiator> isock;
    std::vector<std::pair<uint64_t, uint64_t>> invalidations;
    bool last_dmi_hint = false; // the DMI hint of the last access()'s response

    explicit TestInitiator(sc_core::sc_module_name n) : sc_module(n), isock("isock")
    {
        isock.register_invalidate_direct_mem_ptr(this, &TestInitiator::inval);
    }
    void inval(sc_dt::uint64 lo, sc_dt::uint64 hi) { invalidations.emplace_back(lo, hi); }

    tlm::tlm_response_status access(tlm::tlm_command cmd, uint64_t addr, void *data, unsigned len,
                                    sc_core::sc_time &delay)
    {
        tlm::tlm_generic_payload gp;
        gp.set_command(cmd);
        gp.set_address(addr);
        gp.set_data_ptr(static_cast<unsigned char *>(data));
        gp.set_data_length(len);
        gp.set_streaming_width(len);
        gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        gp.set_dmi_allowed(false);
        isock->b_transport(gp, delay);
        last_dmi_hint = gp.is_dmi_allowed();
        return gp.get_response_status();
    }
    unsigned debug(tlm::tlm_command cmd, uint64_t addr, void *data, unsigned len)
    {
        tlm::tlm_generic_payload gp;
        gp.set_command(cmd);
        gp.set_address(addr);
        gp.set_data_ptr(static_cast<unsigned char *>(data));
        gp.set_data_length(len);
        return isock->transport_dbg(gp);
    }
    // One translation request (xlate_ext, op translate) at `delay`: its
    // answer; *status, when given, gets the payload's response.
    gmmu::xlate_req translate(const gmmu::xlate_req &r, sc_core::sc_time &delay,
                              tlm::tlm_response_status *status = nullptr)
    {
        gmmu::xlate_ext x;
        x.reqs.push_back(r);
        tlm::tlm_generic_payload gp;
        gp.set_command(tlm::TLM_IGNORE_COMMAND);
        gp.set_extension(&x);
        isock->b_transport(gp, delay);
        gp.clear_extension(&x); // x lives on the stack
        if (status)
            *status = gp.get_response_status();
        return x.reqs[0];
    }
    tlm::tlm_response_status warp(tlm::tlm_command cmd, gmmu::warp_ext &ext, sc_core::sc_time &delay)
    {
        tlm::tlm_generic_payload gp;
        gp.set_command(cmd);
        gp.set_address(ext.va[0]);
        gp.set_data_ptr(nullptr);
        gp.set_data_length(0);
        gp.set_extension(&ext);
        gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        isock->b_transport(gp, delay);
        gp.clear_extension(&ext);
        return gp.get_response_status();
    }
};
