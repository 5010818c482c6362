# Golden-stats regression (tests/golden/runs.tsv): one ctest per run, label
# "golden"; the runs that need the Verilated RTL also carry "cosim" and are
# registered only when the RTL bridge is built.
find_package(Python3 COMPONENTS Interpreter QUIET)
if(TARGET gmmu-sim AND Python3_Interpreter_FOUND)
  file(STRINGS ${CMAKE_SOURCE_DIR}/tests/golden/runs.tsv _golden_lines)
  foreach(_line IN LISTS _golden_lines)
    if(_line MATCHES "^#" OR _line STREQUAL "")
      continue()
    endif()
    string(REPLACE "\t" ";" _cols "${_line}")
    list(GET _cols 0 _name)
    list(GET _cols 1 _labels)
    if(_line MATCHES "^[^\t]*\tgolden;cosim\t" AND NOT TARGET gmmu_rtl_bridge)
      continue()
    endif()
    if(_line MATCHES "^[^\t]*\tgolden;cosim\t")
      set(_lab "golden;cosim")
    else()
      set(_lab "golden")
    endif()
    add_test(NAME golden.${_name}
      COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/golden/golden.py check ${_name}
              --bin $<TARGET_FILE:gmmu-sim> --work ${CMAKE_BINARY_DIR}/golden)
    set_tests_properties(golden.${_name} PROPERTIES LABELS "${_lab}" TIMEOUT 300)
    if(_lab STREQUAL "golden")
      list(APPEND _golden_plain ${_name})
    endif()
  endforeach()
  # The L1 TLB's hit fast path is a speed-up only: every plain run must give
  # the same stats with it off (docs/performance.md, "The L1 hit fast path").
  add_test(NAME golden.hit_fast_path_off
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/golden/golden.py check ${_golden_plain}
            --set l1_tlb.hit_fast_path=false --bin $<TARGET_FILE:gmmu-sim> --work ${CMAKE_BINARY_DIR}/golden)
  set_tests_properties(golden.hit_fast_path_off PROPERTIES LABELS "golden" TIMEOUT 600)
endif()

# Every named config (platforms/configs/*.json) loads and runs briefly.
if(TARGET gmmu-sim AND Python3_Interpreter_FOUND)
  file(GLOB _named_configs CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/platforms/configs/*.json)
  foreach(_cfg IN LISTS _named_configs)
    get_filename_component(_cname ${_cfg} NAME_WE)
    add_test(NAME named_config.${_cname}
      COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/golden/golden.py named ${_cname}
              --bin $<TARGET_FILE:gmmu-sim> --work ${CMAKE_BINARY_DIR}/golden)
    set_tests_properties(named_config.${_cname} PROPERTIES LABELS "golden" TIMEOUT 300)
  endforeach()
endif()
