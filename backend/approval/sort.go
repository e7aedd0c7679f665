package approval

import "sort"

func sortByCreated(rs []Request) {
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].CreatedAt.Equal(rs[j].CreatedAt) {
			return rs[i].ID < rs[j].ID
		}
		return rs[i].CreatedAt.Before(rs[j].CreatedAt)
	})
}
