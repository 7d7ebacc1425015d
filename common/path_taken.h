// The path a stage took on its last call, where it chooses one by the problem or the GPU (a
// fusion depth, a plan, the field held on chip or a fallback to an earlier stage). The stage
// notes it; the tests read it back and check that a size takes the path the lesson says it takes
// (a stage that always fell back would otherwise pass every test of its results).
#pragma once
#include <string>

namespace tut {

void note_path(const std::string& stage, const std::string& path);
// What `stage` noted last; "" if it noted nothing (it chooses no path, or was not called).
std::string path_taken(const std::string& stage);

}  // namespace tut
